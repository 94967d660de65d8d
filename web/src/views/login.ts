// Log in, or create an account. Both end with a token kept by session.ts.
import { callApi } from '../api.js'
import type { SessionAnswer } from '../api-types.js'
import { el, field, whileBusy } from '../dom.js'
import { clearError, reportFailure } from '../messages.js'
import { saveSession, type Session } from '../session.js'

export function showLogin (container: HTMLElement, signedIn: (session: Session) => void): undefined {
  const done = (answer: SessionAnswer) => {
    clearError()
    const session = { userID: answer.userID, jwtToken: answer.jwtToken }
    saveSession(session)
    signedIn(session)
  }

  container.append(
    el('h1', { tabindex: -1 }, ['Study with flashcards']),
    el('p', { class: 'lead' }, ['Log in to study today\'s cards, or create an account to start your library.']),
    el('div', { class: 'columns' }, [loginForm(done), registerForm(done)])
  )
  return undefined
}

function loginForm (done: (answer: SessionAnswer) => void): HTMLElement {
  const email = el('input', { type: 'email', name: 'email', autocomplete: 'username', required: true })
  const password = el('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true })
  const submit = el('button', { type: 'submit', class: 'primary' }, ['Log in'])
  const form = el('form', { class: 'panel', id: 'login-form', 'aria-labelledby': 'login-heading' }, [
    el('h2', { id: 'login-heading' }, ['Log in']),
    field('Email', email),
    field('Password', password),
    submit
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    // .catch after .then: a failure in done (storage the browser refuses) is shown too
    whileBusy(submit, () => callApi('login', { email: email.value, password: password.value }))
      .then(done).catch(reportFailure)
  })
  return form
}

function registerForm (done: (answer: SessionAnswer) => void): HTMLElement {
  const email = el('input', { type: 'email', name: 'email', autocomplete: 'email', required: true })
  const password = el('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: true, minlength: 8 })
  const displayName = el('input', { type: 'text', name: 'displayName', autocomplete: 'nickname', maxlength: 100 })
  const submit = el('button', { type: 'submit' }, ['Create account'])
  const form = el('form', { class: 'panel', id: 'register-form', 'aria-labelledby': 'register-heading' }, [
    el('h2', { id: 'register-heading' }, ['Create an account']),
    field('Email', email),
    field('Password', password, 'At least 8 characters.'),
    field('Name (optional)', displayName),
    submit
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    // the user's days (streaks, "today") follow the clock of the device they sign up on; Settings can change it
    const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone
    const name = displayName.value.trim()
    whileBusy(submit, () => callApi('register', {
      email: email.value,
      password: password.value,
      ...(name === '' ? {} : { displayName: name }),
      ...(timezone === undefined || timezone === '' ? {} : { timezone })
    })).then(done).catch(reportFailure)
  })
  return form
}

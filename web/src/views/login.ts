// Log in, or create an account. Both end with a token kept by session.ts. A learner who
// forgot their password asks here for a link to choose a new one (#/forgot-password);
// the link opens the reset screen (views/mailed-links.ts).
import { callApi } from '../api.js'
import type { SessionAnswer } from '../api-types.js'
import { el, field, replaceAfter, whileBusy } from '../dom.js'
import { clearError, reportFailure } from '../messages.js'
import { saveSession, type Session } from '../session.js'

/** The address of the login screen with the form that asks for a reset link open. */
export const FORGOT_PASSWORD = '#/forgot-password'

export function showLogin (container: HTMLElement, signedIn: (session: Session) => void, forgotPassword = false): undefined {
  const done = (answer: SessionAnswer) => {
    clearError()
    const session = { userID: answer.userID, jwtToken: answer.jwtToken }
    saveSession(session)
    signedIn(session)
  }

  container.append(
    el('h1', { tabindex: -1 }, ['Study with flashcards']),
    el('p', { class: 'lead' }, ['Log in to study today\'s cards, or create an account to start your library.']),
    el('div', { class: 'columns' }, [forgotPassword ? forgotPasswordForm() : loginForm(done), registerForm(done)])
  )
  return undefined
}

/**
 * Asks for a link to choose a new password. The service answers alike whether or not an
 * account has the email, and so does the page: it cannot tell, and says so.
 */
function forgotPasswordForm (): HTMLElement {
  const email = el('input', { type: 'email', name: 'email', autocomplete: 'username', required: true })
  const submit = el('button', { type: 'submit', class: 'primary' }, ['Mail me a link'])
  const heading = el('h2', { id: 'forgot-heading' }, ['Forgot your password?'])
  const form = el('form', { class: 'panel', id: 'forgot-password-form', 'aria-labelledby': 'forgot-heading' }, [
    heading,
    el('p', { class: 'hint' }, ['Give the email of your account, and we mail it a link to choose a new password.']),
    field('Email', email),
    el('div', { class: 'button-row' }, [submit, el('a', { href: '#/', class: 'button-link' }, ['Back to log in'])])
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const address = email.value.trim()
    whileBusy(submit, () => callApi('request-password-reset', { email: address })).then(() => {
      clearError()
      const sent = el('p', { role: 'status', id: 'reset-mail-sent', tabindex: -1 }, [
          `If an account has the email ${address}, a mail with a link to choose a new password is on its way. ` +
          'The link works once, within an hour. No mail? Look in the spam folder, or ask again.'
      ])
      replaceAfter(heading, [sent, el('a', { href: '#/', class: 'button-link' }, ['Back to log in'])])
      sent.focus()
    }).catch(reportFailure)
  })
  return form
}

function loginForm (done: (answer: SessionAnswer) => void): HTMLElement {
  const email = el('input', { type: 'email', name: 'email', autocomplete: 'username', required: true })
  const password = el('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true })
  const submit = el('button', { type: 'submit', class: 'primary' }, ['Log in'])
  const form = el('form', { class: 'panel', id: 'login-form', 'aria-labelledby': 'login-heading' }, [
    el('h2', { id: 'login-heading' }, ['Log in']),
    field('Email', email),
    field('Password', password),
    submit,
    el('p', { class: 'hint' }, [el('a', { href: FORGOT_PASSWORD, id: 'forgot-password-link' }, ['Forgot password?'])])
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

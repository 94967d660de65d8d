// The screens the links the service mails open, signed in or not: choosing a new password
// (#/reset-password?token=...) and confirming a new email (#/confirm-email-change?token=...).
// The token is in the fragment, which the browser never sends to a server; once the link
// has done its work, the address loses the token (history.replaceState), so that going back
// does not offer a used link again.
import { ApiError, callApi } from '../api.js'
import { el, field, replaceChildren, whileBusy } from '../dom.js'
import { clearError, reportFailureIn } from '../messages.js'
import { saveSession, type Session } from '../session.js'
import { FORGOT_PASSWORD } from './login.js'

/** The refusals that say the link itself no longer works: the way on is a new one. */
const LINK_REFUSALS = new Set(['invalid_link', 'link_used', 'link_expired'])

function forgetToken (hash: string): void {
  history.replaceState(null, '', hash)
}

/** Two new passwords, the same twice; then the account's session on this device. */
export function showPasswordReset (container: HTMLElement, token: string, signedIn: (session: Session) => void): void {
  const password = el('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: true, minlength: 8 })
  const again = el('input', { type: 'password', name: 'new-password-again', autocomplete: 'new-password', required: true, minlength: 8 })
  const problem = el('p', { class: 'field-problem', role: 'alert', id: 'reset-problem' })
  const newLink = el('p', { hidden: true }, [el('a', { href: FORGOT_PASSWORD, class: 'button-link' }, ['Ask for a new link'])])
  const submit = el('button', { type: 'submit', class: 'primary' }, ['Set password and log in'])
  const form = el('form', { class: 'panel', id: 'reset-password-form', 'aria-labelledby': 'reset-heading' }, [
    el('h2', { id: 'reset-heading' }, ['Your new password']),
    field('New password', password, 'At least 8 characters.'),
    field('New password again', again),
    problem,
    submit,
    newLink
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    problem.textContent = ''
    if (password.value !== again.value) {
      reportFailureIn(problem, new Error('The two passwords differ: type the same new password in both fields.'))
      again.focus()
      return
    }
    whileBusy(submit, () => callApi('reset-password', { resetToken: token, newPassword: password.value })).then((answer) => {
      clearError()
      const session = { userID: answer.userID, jwtToken: answer.jwtToken }
      saveSession(session)
      forgetToken('#/library')
      signedIn(session)
    }).catch((error: unknown) => {
      reportFailureIn(problem, error)
      newLink.hidden = !(error instanceof ApiError && LINK_REFUSALS.has(error.code))
    })
  })
  container.append(
    el('h1', { tabindex: -1 }, ['Choose a new password']),
    el('p', { class: 'lead' }, ['Setting it logs you in here, and logs your account out on every other device.']),
    form
  )
}

/** Confirms the new email at once: opening the link is the confirmation. */
export function showEmailConfirmation (container: HTMLElement, token: string, signedIn: boolean): void {
  const result = el('p', { class: 'loading', role: 'status', id: 'email-change-result' }, ['Confirming your new email…'])
  const onward = el('p', {})
  container.append(el('h1', { tabindex: -1 }, ['Your new email']), el('div', { class: 'panel' }, [result, onward]))
  const continueLink = signedIn
    ? el('a', { href: '#/settings', class: 'button-link' }, ['Continue to Settings'])
    : el('a', { href: '#/', class: 'button-link' }, ['Log in'])
  callApi('confirm-email-change', { token }).then((changed) => {
    result.className = ''
    result.textContent = `Your account's email is now ${changed.email}. Log in with it from now on.`
  }, (error: unknown) => {
    result.className = 'inline-error'
    result.textContent = error instanceof Error ? error.message : String(error)
  }).finally(() => {
    forgetToken('#/')
    replaceChildren(onward, [continueLink])
  })
}

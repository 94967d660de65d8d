import { el, whileBusy } from './dom.js'
import { clearError, reportFailure, reportFailureIn } from './messages.js'

type Attributes = Parameters<typeof el>[1]
type Children = Parameters<typeof el>[2]

/**
 * A form that runs `action` on submit, with its submit button disabled meanwhile
 * so that a double press sends one request. A failure is shown in the message
 * area, or in `problemArea` when given (a form whose failures belong next to it);
 * a success clears an earlier error, which no longer applies.
 */
export function actionForm (attributes: Attributes, children: Children, action: () => Promise<unknown>, problemArea?: HTMLElement): HTMLFormElement {
  const element = el('form', attributes, children)
  element.addEventListener('submit', (event) => {
    event.preventDefault()
    const submit = element.querySelector<HTMLButtonElement>('button[type="submit"]')
    if (submit?.disabled === true) return
    if (problemArea === undefined) {
      whileBusy(submit, action).then(clearError, reportFailure)
      return
    }
    problemArea.textContent = ''
    whileBusy(submit, action).then(() => { problemArea.textContent = '' }, (error: unknown) => { reportFailureIn(problemArea, error) })
  })
  return element
}

/** Runs a button's action with the button disabled meanwhile, reporting a failure. */
export function act (control: HTMLButtonElement | null, action: () => Promise<unknown>): void {
  whileBusy(control, action).then(clearError, reportFailure)
}

export function submitButton (text: string, primary = false): HTMLButtonElement {
  return el('button', { type: 'submit', class: primary ? 'primary' : null }, [text])
}

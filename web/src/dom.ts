// Building the page with createElement and text nodes only: no HTML parsed from
// strings, so user data (card texts, folder names) can never become markup, and
// nothing trips the page's Content-Security-Policy (no style attributes, no inline code).

type Child = Node | string | null | undefined | false
type Attributes = Record<string, string | number | boolean | null | undefined>
type Handlers = Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>

/**
 * An element with attributes, event handlers and children.
 * `class` sets the class list; `true` sets a boolean attribute, `false`, null and undefined leave it out.
 */
export function el<K extends keyof HTMLElementTagNameMap> (
  tag: K,
  attributes: Attributes = {},
  children: Child[] = [],
  on: Handlers = {}
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue
    element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, children)
  for (const [type, handler] of Object.entries(on)) {
    element.addEventListener(type, handler as EventListener)
  }
  return element
}

export function append (parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child)
  }
}

/** Replaces everything inside `parent` with `children`. */
export function replaceChildren (parent: Element, children: Child[]): void {
  parent.replaceChildren()
  append(parent, children)
}

/**
 * Replaces everything that follows `first` in its parent with `children`, leaving `first`
 * (a panel's heading) in place: an element taken out of the page loses the focus, even
 * when it is put back at once.
 */
export function replaceAfter (first: Element, children: Child[]): void {
  while (first.nextSibling !== null) first.nextSibling.remove()
  const rest = document.createDocumentFragment()
  append(rest, children)
  first.after(rest)
}

let idCounter = 0
/** A unique id, for tying a label to its input. */
export function uniqueId (prefix: string): string {
  idCounter += 1
  return `${prefix}-${idCounter}`
}

/** A label and its control, wrapped in one block; the label names the control for assistive technology. */
export function field (labelText: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  if (control.id === '') control.id = uniqueId('field')
  const children: Child[] = [el('label', { for: control.id }, [labelText]), control]
  if (hint !== undefined) {
    const hintId = `${control.id}-hint`
    control.setAttribute('aria-describedby', hintId)
    children.push(el('p', { class: 'hint', id: hintId }, [hint]))
  }
  return el('div', { class: 'field' }, children)
}

export function button (text: string, onClick: (event: MouseEvent) => void, attributes: Attributes = {}): HTMLButtonElement {
  return el('button', { type: 'button', ...attributes }, [text], { click: onClick })
}

/**
 * Runs an action with its button disabled, so a double click cannot send a
 * request twice; the button comes back whatever the outcome.
 */
export async function whileBusy<T> (control: HTMLButtonElement | HTMLFieldSetElement | null, action: () => Promise<T>): Promise<T> {
  // a focused control that is disabled loses the focus; it gets it back after, unless the action put it elsewhere
  const focused = control?.contains(document.activeElement) === true ? document.activeElement : null
  if (control !== null) control.disabled = true
  try {
    return await action()
  } finally {
    if (control !== null) control.disabled = false
    if (focused instanceof HTMLElement && focused.isConnected) focusIfLost(focused)
  }
}

/** True while the user is typing somewhere, where a shortcut key must be left alone. */
export function isTyping (target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement
}

/** "1 card", "1,200 cards": the count as the reader's language writes numbers. */
export function plural (count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`
}

/**
 * A button for something that cannot be taken back: the first press asks, in
 * place (the question made then, when it is a function), and only "Yes" acts. Works by keyboard, unlike a browser dialog it can be read in context.
 */
export function confirmButton (label: string, question: string | (() => string), action: (yes: HTMLButtonElement) => void, attributes: Attributes = {}): HTMLElement {
  const holder = el('div', { class: 'confirm' })
  const ask = button(label, () => {
    const yes = button(`Yes, ${label.toLowerCase()}`, () => { action(yes) }, { class: 'danger' })
    const no = button('Cancel', () => {
      replaceChildren(holder, [ask])
      ask.focus()
    })
    replaceChildren(holder, [el('p', { class: 'confirm-question' }, [typeof question === 'string' ? question : question()]), el('div', { class: 'button-row' }, [yes, no])])
    yes.focus()
  }, { class: 'danger-outline', ...attributes })
  holder.append(ask)
  return holder
}


/** One named number of a <dl class="figures">: "Total XP 40". */
export function figure (label: string, value: string, id: string): HTMLElement {
  return el('div', { class: 'figure' }, [el('dt', {}, [label]), el('dd', { id }, [value])])
}

/**
 * Moves the focus to `target` when the focus has been lost: the element that held it was
 * redrawn away (the browser then puts it on <body>, and a keyboard user starts over at the
 * top of the page). Focus the user has put somewhere on purpose stays where it is.
 */
export function focusIfLost (target: HTMLElement | null | undefined): void {
  const active = document.activeElement
  if (active === null || active === document.body || !active.isConnected) target?.focus()
}

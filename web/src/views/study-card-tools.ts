// What can be done to the card on show while studying, as in Anki's study screen: edit it
// (the change shows at once), bury it until tomorrow, suspend it, flag it, delete it.
// Bury, suspend and flag are taken back from the notice that says they were done, or by
// flagging again; a deletion is asked about first.
import type { EditedCard } from '../api-types.js'
import { mediaAddresses } from '../card-html.js'
import { button, confirmButton, el } from '../dom.js'
import { submitButton } from '../forms.js'
import type { StudyCard } from '../today-cards.js'
import { cardForm, firstEditingField, type CardSource } from './card-editor.js'

/** Anki's flags, by number. */
export const FLAGS = ['No flag', 'Red', 'Orange', 'Green', 'Blue', 'Pink', 'Turquoise', 'Purple']

export interface CardToolActions {
  edit: () => void
  bury: () => void
  suspend: () => void
  flag: (flag: number) => void
  remove: (yes: HTMLButtonElement) => void
}

/** The row of tools under the card on show; off while an answer or another change is on its way. */
export function cardTools (card: StudyCard, actions: CardToolActions, busy: boolean): HTMLElement {
  const flag = el('select', { id: 'card-flag', 'aria-label': 'Flag', disabled: busy }, FLAGS.map((name, number) =>
    el('option', { value: number, selected: number === card.flag }, [number === 0 ? 'No flag' : `${name} flag`])))
  flag.addEventListener('change', () => { actions.flag(Number(flag.value)) })
  return el('div', { class: 'card-tools button-row', role: 'group', 'aria-label': 'This card' }, [
    button('Edit', actions.edit, { id: 'card-edit', 'aria-keyshortcuts': 'E', disabled: busy }),
    button('Bury', actions.bury, { id: 'card-bury', 'aria-keyshortcuts': '-', title: 'Until tomorrow', 'aria-describedby': 'bury-hint', disabled: busy }),
    el('span', { class: 'visually-hidden', id: 'bury-hint' }, ['until tomorrow']),
    button('Suspend', actions.suspend, { id: 'card-suspend', 'aria-keyshortcuts': '@', disabled: busy }),
    flag,
    confirmButton('Delete', 'Delete this card? Its reviews still count.', actions.remove, { id: 'card-delete', disabled: busy })
  ])
}

/** The card on show as its editor starts from it. */
function sourceOf (card: StudyCard): CardSource {
  return { kind: card.cloze ? 'cloze' : 'basic', format: card.format, front: card.front, back: card.back }
}

/**
 * The editor of the card on show, in place of the card. `save` sends the edit and gives
 * back the service's answer; the study screen shows the card as it is now.
 */
export function studyCardEditor (card: StudyCard, save: (edited: CardSource) => Promise<EditedCard>, done: (edited: EditedCard | null) => void): HTMLElement {
  const form = cardForm({
    initial: sourceOf(card),
    media: mediaAddresses(card.frontHtml, card.backHtml),
    kindChangeable: false,
    attributes: { class: 'stacked-form edit-card-form study-edit-form', id: 'study-edit-form' },
    submit: submitButton('Save card', true),
    otherButtons: [button('Cancel', () => { done(null) }, { id: 'study-edit-cancel' })],
    save: async (edited) => { done(await save(edited)) }
  })
  const editor = el('section', { class: 'panel study-editor', id: 'study-editor', 'aria-labelledby': 'study-editor-heading' }, [
    el('h2', { id: 'study-editor-heading', tabindex: -1 }, ['Edit this card']),
    form
  ])
  queueMicrotask(() => { firstEditingField(form)?.focus() })
  return editor
}

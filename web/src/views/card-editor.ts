// The card editor of the flashcard panel, for a new card and for a card edited: plain
// text in text areas, or formatted HTML in contenteditable fields with bold, italic,
// cloze deletions (Ctrl+Shift+C, as in Anki) and images or sounds added by paste, drop
// or a file picker; and a preview of the sides the card will show.
//
// A formatted field's HTML is the card's source as sent (format "html"): the service
// sanitizes it when it renders the sides. The field itself only ever holds what the
// page's allowlist lets through (card-html.ts): what is pasted or dropped is cleaned
// before it goes in, and what the browser's own editing writes is tidied after. Media
// are written media:<mediaID> in the source and shown in the field from the address the
// upload (or the card's read) gave.
import { ApiError, uploadMedia } from '../api.js'
import type { TextFormat } from '../api-types.js'
import {
  cleanFragment, editableSource, escapeText, referencedMedia, tidyEditable
} from '../card-html.js'
import { clozeNumbers, clozeSideHtml, nextClozeNumber, parseCloze } from '../cloze.js'
import { button, el, field, replaceChildren, uniqueId } from '../dom.js'
import { actionForm } from '../forms.js'

export type CardKind = 'basic' | 'cloze'

/** A card as the editor writes it: a front and a back, or a cloze note's text and its extra. */
export interface CardSource {
  kind: CardKind
  format: TextFormat
  /** the front; of a cloze note, its text with the deletions */
  front: string
  /** the back; of a cloze note, the extra shown under every answer */
  back: string
}

export interface CardFormOptions {
  initial: CardSource
  /** addresses to show the card's media with, by media id (from the card's read); uploads add theirs */
  media: Map<string, string>
  /** false for a card edited: edit-card keeps a card of a front and back one, and a cloze note's card one */
  kindChangeable: boolean
  attributes: Record<string, string>
  submit: HTMLButtonElement
  otherButtons?: HTMLElement[]
  save: (card: CardSource) => Promise<void>
}

/** The kinds of file upload-media keeps, for the file picker (the service judges by the bytes). */
const MEDIA_TYPES = 'image/png,image/jpeg,image/gif,image/webp,audio/mpeg,audio/ogg,audio/mp4,audio/wav,audio/x-wav,audio/wave'

const FORMAT_NAMES: Record<TextFormat, string> = { text: 'Plain text', html: 'Formatted' }
const KIND_NAMES: Record<CardKind, string> = { basic: 'Front and back', cloze: 'Cloze (fill in the blanks)' }

const LABELS: Record<CardKind, { front: string, back: string }> = {
  basic: { front: 'Front', back: 'Back' },
  cloze: { front: 'Text, with its cloze deletions', back: 'Extra (shown under every answer, optional)' }
}

/** What to say, next to the control, when the service refuses a file: by its code, never its status. */
function uploadProblem (error: unknown, fileName: string): string {
  if (!(error instanceof ApiError)) return `"${fileName}" could not be added: ${String(error)}`
  switch (error.code) {
    case 'unsupported_media':
      return `"${fileName}" is not a kind of file cards can show: use a PNG, JPEG, GIF or WebP image, or an MP3, Ogg, M4A or WAV sound.`
    case 'media_too_large':
      return `"${fileName}" is larger than 20 MiB, the most one file may be: use a smaller file.`
    case 'quota_exceeded':
      return `"${fileName}" would take your media past its quota (1 GiB): delete cards that show media you no longer need, then try again.`
    case 'invalid_upload':
      return `"${fileName}" could not be sent whole (an empty file, or the upload was cut): try again.`
    case 'network_failure':
      return `"${fileName}" could not be sent: the service could not be reached. Check your connection and try again.`
    default:
      return `"${fileName}" could not be added: ${error.message}`
  }
}

/** A file's name less its extension, as the description an image gets until the user writes one. */
function describedAs (fileName: string): string {
  const base = fileName.replace(/\.[^.]*$/, '').replace(/[_-]+/g, ' ').trim()
  return base === '' ? 'image' : base
}

interface SideField {
  side: 'front' | 'back'
  label: HTMLLabelElement
  text: HTMLTextAreaElement
  rich: HTMLDivElement
  block: HTMLElement
  /** where the caret was last in the formatted field: where a picked file goes */
  caret: Range | null
}

/** True for the editor's own shortcut chords: Ctrl (Cmd on a Mac) with the key, and Shift when `shift`. */
function chord (event: KeyboardEvent, key: string, shift = false): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && event.shiftKey === shift && event.key.toLowerCase() === key
}

/**
 * The form of a card: the editor, a place next to the buttons for what went wrong
 * with saving, and the buttons. `save` gets the card as written.
 */
export function cardForm (options: CardFormOptions): HTMLFormElement {
  const media = options.media
  let format = options.initial.format
  let kind = options.initial.kind

  const status = el('p', { class: 'visually-hidden', 'aria-live': 'polite' })
  const toolProblem = el('p', { class: 'field-problem', role: 'alert' })
  const saveProblem = el('p', { class: 'field-problem', role: 'alert' })
  const say = (words: string) => { status.textContent = words }

  const hintId = uniqueId('editor-hint')
  const makeField = (side: 'front' | 'back', initial: string): SideField => {
    const text = el('textarea', { rows: 2, maxlength: 10000, 'data-side': side, spellcheck: true, id: uniqueId('card-text') })
    const label = el('label', { for: text.id, id: uniqueId('card-label') })
    const rich = el('div', {
      class: 'rich-editor',
      contenteditable: 'true',
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-labelledby': label.id,
      'aria-describedby': hintId,
      'aria-keyshortcuts': 'Control+B Control+I Control+Shift+C',
      'data-side': side,
      spellcheck: 'true'
    })
    if (format === 'html') rich.replaceChildren(cleanFragment(initial, { media: referencedMedia(media, true), clozeClass: false }))
    else text.value = initial
    // a label names a contenteditable field (aria-labelledby) but does not focus it by itself
    label.addEventListener('click', () => { if (format === 'html') rich.focus() })
    const block = el('div', { class: 'field' }, [label, text, rich])
    return { side, label, text, rich, block, caret: null }
  }
  const front = makeField('front', options.initial.front)
  const back = makeField('back', options.initial.back)
  const fields = [front, back]
  let lastField = front

  // ---- the choices: format, and kind for a new card
  const formatChoice = el('select', {}, (['text', 'html'] as const).map((value) => el('option', { value, selected: value === format }, [FORMAT_NAMES[value]])))
  const kindChoice = el('select', { disabled: !options.kindChangeable }, (['basic', 'cloze'] as const).map((value) => el('option', { value, selected: value === kind }, [KIND_NAMES[value]])))
  const choices = el('div', { class: 'field-row editor-choices' }, [
    field('Format', formatChoice),
    field('Kind of card', kindChoice, options.kindChangeable
      ? 'Ctrl+Shift+C on a selection makes a cloze deletion, and a cloze card.'
      : 'A card keeps its kind: for the other kind, add a new card.')
  ])

  // ---- the toolbar: formatting, cloze, media
  const picker = el('input', { type: 'file', accept: MEDIA_TYPES, hidden: true, 'aria-label': 'Image or sound file to add', class: 'media-picker' })
  const toolButton = (text: string, label: string, keys: string, shortcut: string, action: () => void, extra: Record<string, string> = {}) => {
    const control = button(text, action, { title: shortcut === '' ? label : `${label} (${shortcut})`, 'aria-label': label, 'aria-keyshortcuts': keys || null, ...extra })
    // a press with the mouse leaves the caret and the selection where they are
    control.addEventListener('mousedown', (event) => { event.preventDefault() })
    return control
  }
  const boldButton = toolButton('B', 'Bold', 'Control+B', 'Ctrl+B', () => { format1('bold') }, { class: 'tool-bold' })
  const italicButton = toolButton('I', 'Italic', 'Control+I', 'Ctrl+I', () => { format1('italic') }, { class: 'tool-italic' })
  const clozeButton = toolButton('[…]', 'Make a cloze deletion of the selection', 'Control+Shift+C', 'Ctrl+Shift+C', () => { makeCloze() }, { class: 'tool-cloze' })
  const mediaButton = toolButton('Add image or sound', 'Add an image or a sound', '', '', () => { picker.click() }, { class: 'tool-media' })
  const toolbar = el('div', { class: 'editor-toolbar', role: 'toolbar', 'aria-label': 'Formatting' }, [boldButton, italicButton, clozeButton, mediaButton, picker])
  const hint = el('p', { class: 'hint', id: hintId })

  // the description of the image chosen in a field (clicked, or just added)
  const altInput = el('input', { type: 'text', maxlength: 500, autocomplete: 'off', class: 'alt-input' })
  const altField = field('Description of the image (alt text)', altInput)
  altField.hidden = true
  let describedImage: HTMLImageElement | null = null
  const describe = (image: HTMLImageElement | null) => {
    describedImage = image
    altField.hidden = image === null || format !== 'html'
    altInput.value = image?.alt ?? ''
  }
  altInput.addEventListener('input', () => {
    if (describedImage === null) return
    describedImage.alt = altInput.value
    schedulePreview()
  })

  // ---- the preview of the sides
  const previewBody = el('div', { class: 'preview-body' })
  const preview = el('details', { class: 'card-preview', open: true }, [el('summary', {}, ['Preview of the sides']), previewBody])
  let previewPending = false
  const schedulePreview = () => {
    if (previewPending) return
    previewPending = true
    requestAnimationFrame(() => {
      previewPending = false
      drawPreview()
    })
  }

  const valueOf = (sideField: SideField): string => format === 'html' ? editableSource(sideField.rich) : sideField.text.value
  const source = (): CardSource => ({ kind, format, front: valueOf(front), back: valueOf(back) })

  const drawPreview = () => {
    const card = source()
    const asHtml = (text: string) => card.format === 'html' ? text : escapeText(text)
    const sideView = (label: string, html: string) => el('div', { class: 'preview-side' }, [
      el('p', { class: 'face-label' }, [label]),
      el('div', { class: `card-html format-${card.format}` }, [cleanFragment(html, { media: referencedMedia(media, false), clozeClass: true })])
    ])
    if (card.kind === 'basic') {
      replaceChildren(previewBody, [el('div', { class: 'preview-card' }, [sideView('Front', asHtml(card.front)), sideView('Back', asHtml(card.back))])])
      return
    }
    const parts = parseCloze(card.front)
    const numbers = clozeNumbers(card.front)
    if (numbers.length === 0) {
      replaceChildren(previewBody, [el('p', { class: 'hint' }, ['No cloze deletion yet: select words in the text and press Ctrl+Shift+C.'])])
      return
    }
    const extra = card.back === '' ? '' : `<br>${asHtml(card.back)}`
    const text = card.format === 'html' ? (written: string) => written : escapeText
    replaceChildren(previewBody, [
      el('p', { class: 'hint' }, [numbers.length === 1 ? 'This note makes 1 card.' : `This note makes ${numbers.length} cards, one for each number.`]),
      ...numbers.map((number) => el('div', { class: 'preview-card' }, [
        el('p', { class: 'preview-card-name' }, [`Card ${number}`]),
        sideView('Front', clozeSideHtml(parts, number, 'front', text)),
        sideView('Back', clozeSideHtml(parts, number, 'back', text) + extra)
      ]))
    ])
  }

  // ---- showing the state: labels, which fields, which tools
  const showState = () => {
    for (const sideField of fields) {
      sideField.label.textContent = LABELS[kind][sideField.side]
      sideField.text.hidden = format === 'html'
      sideField.rich.hidden = format !== 'html'
    }
    front.text.required = format === 'text'
    boldButton.hidden = format !== 'html'
    italicButton.hidden = format !== 'html'
    mediaButton.hidden = format !== 'html'
    if (format !== 'html') describe(null)
    hint.textContent = format === 'html'
      ? 'Ctrl+B bold, Ctrl+I italic, Ctrl+Shift+C cloze deletion of the selection. Paste or drop an image or a sound into a field, or add one with the button.'
      : 'Ctrl+Shift+C makes a cloze deletion of the selection. Choose Formatted for bold, italic, images and sounds.'
    schedulePreview()
  }

  formatChoice.addEventListener('change', () => {
    const next = formatChoice.value === 'html' ? 'html' : 'text'
    if (next === format) return
    for (const sideField of fields) {
      if (next === 'html') {
        // the words as written, each line break a <br>
        sideField.rich.replaceChildren(cleanFragment(escapeText(sideField.text.value), { media: referencedMedia(media, true), clozeClass: false }))
      } else {
        // plain text keeps the words; formatting, images and sounds are not text
        sideField.text.value = sideField.rich.innerText.replace(/\n$/, '')
      }
    }
    format = next
    toolProblem.textContent = ''
    showState()
  })
  kindChoice.addEventListener('change', () => {
    kind = kindChoice.value === 'cloze' ? 'cloze' : 'basic'
    showState()
  })

  // ---- editing commands
  const richOf = (node: Node | null): SideField | undefined => fields.find((sideField) => node !== null && sideField.rich.contains(node))

  /** Puts the caret back in the formatted field last used, where it was, so a toolbar command acts there. */
  const restoreCaret = (sideField: SideField) => {
    const selection = getSelection()
    if (selection === null) return
    if (richOf(selection.anchorNode) === sideField) return
    sideField.rich.focus()
    if (sideField.caret !== null && sideField.rich.contains(sideField.caret.startContainer)) {
      selection.removeAllRanges()
      selection.addRange(sideField.caret)
    }
  }

  const format1 = (command: 'bold' | 'italic') => {
    if (format !== 'html') return
    restoreCaret(lastField)
    // execCommand is the editing the browser undoes with Ctrl+Z; it writes <b> and <i>
    document.execCommand(command)
    tidyEditable(lastField.rich)
    schedulePreview()
  }

  /** Wraps the selection of the text field as {{cN::selection}}, N the next number, and makes the card a cloze card. */
  const makeCloze = () => {
    if (kind !== 'cloze' && !options.kindChangeable) {
      toolProblem.textContent = 'This card has a front and a back, and keeps that kind: add a new card for a cloze deletion.'
      return
    }
    if (lastField !== front) {
      toolProblem.textContent = `Cloze deletions are made in the text (the first field): select words there, then press Ctrl+Shift+C.`
      return
    }
    toolProblem.textContent = ''
    const number = nextClozeNumber(valueOf(front))
    if (format === 'text') {
      const input = front.text
      const start = input.selectionStart
      const end = input.selectionEnd
      const selected = input.value.slice(start, end)
      input.setRangeText(`{{c${number}::${selected}}}`, start, end, 'end')
      // an empty selection leaves the caret inside the new deletion, ready for its answer
      if (selected === '') input.setSelectionRange(start + `{{c${number}::`.length, start + `{{c${number}::`.length)
      input.focus()
    } else {
      restoreCaret(front)
      const selection = getSelection()
      const range = selection !== null && selection.rangeCount > 0 ? selection.getRangeAt(0) : null
      if (range === null || richOf(range.commonAncestorContainer) !== front) return
      const opening = document.createTextNode(`{{c${number}::`)
      const closing = document.createTextNode('}}')
      const end = range.cloneRange()
      end.collapse(false)
      end.insertNode(closing)
      range.insertNode(opening)
      const caret = document.createRange()
      if (range.toString() === opening.data) caret.setStart(opening, opening.length)
      else caret.setStartAfter(closing)
      caret.collapse(true)
      selection?.removeAllRanges()
      selection?.addRange(caret)
    }
    if (kind !== 'cloze') {
      kind = 'cloze'
      kindChoice.value = 'cloze'
      showState()
      say(`Cloze deletion c${number} made; this is now a cloze card.`)
    } else {
      say(`Cloze deletion c${number} made.`)
      schedulePreview()
    }
  }

  /** Inserts `node` at `range` (or at the end of the field), and puts the caret after it. */
  const insertAt = (sideField: SideField, range: Range | null, node: Node) => {
    const usable = range !== null && sideField.rich.contains(range.startContainer) ? range : null
    const last = node instanceof DocumentFragment ? node.lastChild : node
    if (usable === null) {
      sideField.rich.append(node)
    } else {
      usable.deleteContents()
      usable.insertNode(node)
    }
    if (last !== null && last.isConnected) {
      const caret = document.createRange()
      caret.setStartAfter(last)
      caret.collapse(true)
      sideField.caret = caret
      if (document.activeElement === sideField.rich) {
        getSelection()?.removeAllRanges()
        getSelection()?.addRange(caret)
      }
    }
    tidyEditable(sideField.rich)
    schedulePreview()
  }

  /**
   * Uploads each file, one after the other (the service takes a few uploads of one account at
   * once), then puts it in the field where the caret was when it came.
   */
  const addFiles = (sideField: SideField, files: File[], range: Range | null) => {
    toolProblem.textContent = ''
    let previous: Promise<void> = Promise.resolve()
    for (const file of files) {
      const fileName = file.name === '' ? 'pasted file' : file.name
      mediaButton.setAttribute('aria-busy', 'true')
      previous = previous.then(async () => { say(`Adding ${fileName}…`) }).then(async () => await uploadMedia(file, fileName)).then((uploaded) => {
        media.set(uploaded.mediaID, uploaded.url)
        const element = uploaded.contentType.startsWith('audio/')
          ? el('audio', { src: uploaded.url, controls: true, 'data-media-id': uploaded.mediaID })
          : el('img', { src: uploaded.url, alt: describedAs(file.name), 'data-media-id': uploaded.mediaID })
        insertAt(sideField, range, element)
        if (element instanceof HTMLImageElement) describe(element)
        say(`${element instanceof HTMLImageElement ? 'Image' : 'Sound'} ${fileName} added.`)
      }, (error: unknown) => {
        toolProblem.textContent = uploadProblem(error, fileName)
        say('')
      })
    }
    void previous.finally(() => { mediaButton.removeAttribute('aria-busy') })
  }

  picker.addEventListener('change', () => {
    const files = Array.from(picker.files ?? [])
    picker.value = ''
    if (files.length > 0) addFiles(lastField, files, lastField.caret)
  })

  for (const sideField of fields) {
    const { rich, text } = sideField
    const onKey = (event: KeyboardEvent) => {
      if (chord(event, 'c', true)) {
        event.preventDefault()
        lastField = sideField
        makeCloze()
      } else if (format === 'html' && (chord(event, 'b') || chord(event, 'i'))) {
        event.preventDefault()
        lastField = sideField
        format1(chord(event, 'b') ? 'bold' : 'italic')
      }
    }
    rich.addEventListener('keydown', onKey)
    text.addEventListener('keydown', onKey)
    for (const input of [rich, text]) {
      input.addEventListener('focus', () => { lastField = sideField })
      input.addEventListener('input', () => {
        if (input === rich) tidyEditable(rich)
        schedulePreview()
      })
    }
    rich.addEventListener('click', (event) => {
      if (event.target instanceof HTMLImageElement) describe(event.target)
    })

    // a paste is cleaned before it goes in: files are uploaded, HTML reduced to the allowlist
    rich.addEventListener('paste', (event) => {
      const data = event.clipboardData
      if (data === null) return
      event.preventDefault()
      const selection = getSelection()
      const range = selection !== null && selection.rangeCount > 0 && rich.contains(selection.getRangeAt(0).startContainer) ? selection.getRangeAt(0) : sideField.caret
      const files = Array.from(data.files)
      if (files.length > 0) {
        addFiles(sideField, files, range?.cloneRange() ?? null)
        return
      }
      const html = data.getData('text/html')
      const pasted = html !== ''
        ? cleanFragment(html, { media: referencedMedia(media, false), clozeClass: false })
        : cleanFragment(escapeText(data.getData('text/plain')), { media: referencedMedia(media, false), clozeClass: false })
      insertAt(sideField, range, pasted)
    })
    text.addEventListener('paste', (event) => {
      if ((event.clipboardData?.files.length ?? 0) === 0) return
      event.preventDefault()
      toolProblem.textContent = 'Images and sounds go in formatted cards: choose "Formatted" as the format first.'
    })

    // a drop from elsewhere: files are uploaded where they fall; a drag inside the field moves as usual
    let draggingInside = false
    rich.addEventListener('dragstart', () => { draggingInside = true })
    rich.addEventListener('dragend', () => { draggingInside = false })
    rich.addEventListener('dragover', (event) => {
      if (!draggingInside) event.preventDefault()
    })
    rich.addEventListener('drop', (event) => {
      if (draggingInside) return
      event.preventDefault()
      const data = event.dataTransfer
      if (data === null) return
      const range = caretAt(event.clientX, event.clientY, rich) ?? sideField.caret
      const files = Array.from(data.files)
      if (files.length > 0) {
        addFiles(sideField, files, range)
        return
      }
      const html = data.getData('text/html')
      insertAt(sideField, range, cleanFragment(html !== '' ? html : escapeText(data.getData('text/plain')), { media: referencedMedia(media, false), clozeClass: false }))
    })
  }

  const form = actionForm(options.attributes, [
    choices,
    toolbar,
    hint,
    toolProblem,
    front.block,
    back.block,
    altField,
    status,
    preview,
    saveProblem,
    el('div', { class: 'button-row' }, [options.submit, ...(options.otherButtons ?? [])])
  ], async () => { await options.save(source()) }, saveProblem)

  // where the caret was in each formatted field, for a command or a file that comes from outside it;
  // the listener goes with the form, at the first change after the form is redrawn away
  const keepCaret = () => {
    if (!form.isConnected) {
      document.removeEventListener('selectionchange', keepCaret)
      return
    }
    const selection = getSelection()
    if (selection === null || selection.rangeCount === 0) return
    const range = selection.getRangeAt(0)
    const sideField = richOf(range.startContainer)
    if (sideField !== undefined) {
      sideField.caret = range.cloneRange()
      lastField = sideField
    }
  }
  document.addEventListener('selectionchange', keepCaret)

  showState()
  return form
}

/** The first field a user types in, of a card form: where the focus goes when the form opens. */
export function firstEditingField (form: HTMLElement): HTMLElement | null {
  return form.querySelector<HTMLElement>('[data-side="front"]:not([hidden])')
}

/** The caret position under a point of the screen, when it lies in `within`. */
function caretAt (x: number, y: number, within: HTMLElement): Range | null {
  const position = document.caretPositionFromPoint?.(x, y)
  if (position === null || position === undefined || !within.contains(position.offsetNode)) return null
  const range = document.createRange()
  range.setStart(position.offsetNode, position.offset)
  range.collapse(true)
  return range
}

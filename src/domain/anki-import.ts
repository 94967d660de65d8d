// What an Anki collection becomes in a user's library: where each deck's cards go, what each card
// shows, where it stands in its schedule and what its review history is. Pure: the collection, the
// user's calendar and the media ids in, plain values out. The service (imports/) stores them.
import { addDays as addLocalDays, dayOf, startOfDay, type LocalDay, type UserCalendar } from './calendar.js'
import { kindOfAnkiEntry, lastScheduledAnswer } from './anki-revlog.js'
import { buriedUntilAt } from './card-states.js'
import { CARD_QUEUE, CARD_TYPE, REVLOG_KIND, type AnkiCard, type AnkiDeck, type AnkiDeckConfig, type AnkiNote, type AnkiNotetype, type AnkiRevlogEntry, type CollectionHeader } from './anki/collection.js'
import { cardDue, collectionOffsetMinutesWest, nextDayAt } from './anki/days.js'
import { fsrsParameters, fsrsReplayer, type MemoryState } from './anki/fsrs.js'
import { decodeEntities, renderCard } from './anki/templates.js'
import { holdsOcclusions, occlusionSides } from './image-occlusion.js'
import { CardState, newSchedule, type CardSchedule, type Rating } from './scheduling.js'

/** Which notes the user has already an import brings up to date: those changed later in the package than here (Anki's default), or all it holds. */
export type UpdateNotes = 'ifNewer' | 'always'

/** Where a deck's own cards go: a flashcard of this name in the folder at this path. */
export interface DeckPlacement {
  folder: string[]
  flashcardName: string
  /** the Anki id of the deck each folder of `folder` is made of (undefined for the folders of the target), which a folder made for it keeps */
  folderAnkiIDs: Array<number | undefined>
  /** the deck's id for the flashcard, when the flashcard is the deck (not a flashcard in the deck's own folder, which has the id) */
  flashcardAnkiID?: number
}

/**
 * Decks `A::B::C` as folders under `target`: a deck with subdecks is a folder; a deck's own cards
 * make a flashcard of its name, in its parent's folder, or in its own folder when it has subdecks
 * (or would otherwise sit at the top, where only folders are). Only decks that hold cards get one.
 */
export function deckPlacements (decks: readonly AnkiDeck[], decksWithCards: ReadonlySet<number>, target: readonly string[]): Map<number, DeckPlacement> {
  const key = (path: readonly string[]): string => path.join('\u001f')
  const parents = new Set<string>()
  for (const deck of decks) {
    for (let length = 1; length < deck.path.length; length++) parents.add(key(deck.path.slice(0, length)))
  }
  const deckIdAt = new Map(decks.map((deck) => [key(deck.path), deck.id]))
  const placements = new Map<number, DeckPlacement>()
  for (const deck of decks) {
    if (!decksWithCards.has(deck.id)) continue
    const name = deck.path.at(-1) ?? 'Anki'
    const ownFolder = parents.has(key(deck.path)) || (target.length === 0 && deck.path.length === 1)
    const deckFolders = ownFolder ? deck.path : deck.path.slice(0, -1)
    placements.set(deck.id, {
      folder: [...target, ...deckFolders],
      flashcardName: name,
      folderAnkiIDs: [...target.map(() => undefined), ...deckFolders.map((_, index) => deckIdAt.get(key(deck.path.slice(0, index + 1))))],
      ...(ownFolder ? {} : { flashcardAnkiID: deck.id })
    })
  }
  return placements
}

/** The deck a card belongs to: its home deck when it sits in a filtered one for a while. */
export function homeDeckOf (card: Pick<AnkiCard, 'deckId' | 'originalDeckId'>): number {
  return card.originalDeckId !== 0 ? card.originalDeckId : card.deckId
}

/** Anki's media references in field HTML: `<img src="...">` and `[sound:...]`. */
const IMAGE_SOURCE = /(<img\b[^>]*?\ssrc\s*=\s*)("([^"]*)"|'([^']*)'|([^\s>"']+))/gi
const SOUND = /\[sound:([^\]]+)\]/g

/** The media names a field refers to, as the package's media map names them. */
export function mediaNamesIn (html: string): string[] {
  const names: string[] = []
  for (const match of html.matchAll(IMAGE_SOURCE)) names.push(decodeEntities(match[3] ?? match[4] ?? match[5] ?? ''))
  for (const match of html.matchAll(SOUND)) names.push(decodeEntities(match[1] ?? ''))
  return names.filter((name) => name !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(name))
}

/**
 * A field's HTML with each media reference made `media:<mediaID>` (a sound an audio element); a
 * reference to media the package lacks is left as written, which the sanitizer drops. Counts the
 * references it could not resolve in `missing`.
 */
export function withMediaIds (html: string, mediaIdOf: (name: string) => string | undefined, missing: Set<string>): string {
  if (!html.includes('src') && !html.includes('[sound:')) return html
  const resolve = (raw: string): string | undefined => {
    const name = decodeEntities(raw)
    const id = mediaIdOf(name) ?? mediaIdOf(safeDecodeURI(name))
    if (id === undefined && !/^[a-z][a-z0-9+.-]*:/i.test(name)) missing.add(name)
    return id
  }
  return html
    .replace(IMAGE_SOURCE, (whole, start: string, _quoted, double?: string, single?: string, bare?: string) => {
      const id = resolve(double ?? single ?? bare ?? '')
      return id === undefined ? whole : `${start}"media:${id}"`
    })
    .replace(SOUND, (whole, name: string) => {
      const id = resolve(name)
      return id === undefined ? whole : `<audio src="media:${id}"></audio>`
    })
}

function safeDecodeURI (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** What a card shows: the sides of a front-and-back card, or a cloze note's text and back extra. */
export type ImportedContent =
  | { kind: 'basic', front: string, back: string }
  | { kind: 'cloze', cloze: string, back: string, clozeNumber: number }

/** The most characters a side is rendered to before the import gives up on it (RenderedTooLong). */
export const RENDER_LIMIT = 1_000_000

const ANSWER_RULE = /<hr\s+id\s*=\s*["']?answer["']?\s*\/?>/i
const TYPE_ANSWER = /\[\[type:[^\]]*\]\]/g

/** The field a cloze note type asks about: the first `{{cloze:Field}}` of its question. */
function clozeFieldOf (notetype: AnkiNotetype): string | undefined {
  const format = notetype.templates[0]?.questionFormat ?? ''
  return /\{\{\s*(?:[^}:]*:)*cloze:([^}]+?)\s*\}\}/.exec(format)?.[1]
}

/**
 * A card's content, rendered as Anki renders it: a cloze card as a cloze note (its text and the other
 * fields its answer shows) so that its siblings share it; any other card through its template, the
 * answer less the question Anki repeats above `<hr id=answer>`. Fields hold `media:<mediaID>` already.
 */
export function cardContentOf (card: AnkiCard, note: AnkiNote, notetype: AnkiNotetype, fields: readonly string[], deckName: string): ImportedContent {
  const fieldNames = [...notetype.fields].sort((a, b) => a.ord - b.ord).map((field) => field.name)
  if (notetype.cloze) {
    const clozeField = clozeFieldOf(notetype)
    const index = clozeField === undefined ? 0 : Math.max(0, fieldNames.indexOf(clozeField))
    const occlusion = fields[index] ?? ''
    if (holdsOcclusions(occlusion)) {
      // Anki's Image Occlusion: the image with its masks, as Anki draws them
      const named = (name: string): string => fields[fieldNames.indexOf(name)] ?? ''
      return { kind: 'basic', ...occlusionSides(occlusion, card.ord + 1, { image: named('Image'), header: named('Header'), backExtra: named('Back Extra') }) }
    }
    const answerFormat = notetype.templates[0]?.answerFormat ?? ''
    const extras = fieldNames
      .map((name, position) => ({ name, value: fields[position] ?? '' }))
      .filter(({ name, value }, position) => position !== index && value.trim() !== '' && answerFormat.includes(name))
      .map(({ value }) => value)
    return { kind: 'cloze', cloze: fields[index] ?? '', back: extras.join('<br>'), clozeNumber: card.ord + 1 }
  }
  const template = notetype.templates.find((candidate) => candidate.ord === card.ord) ?? notetype.templates[0]
  const rendered = renderCard({
    fieldNames,
    fieldValues: [...fields],
    questionFormat: template?.questionFormat ?? '',
    answerFormat: template?.answerFormat ?? '',
    cloze: false,
    cardOrd: card.ord,
    tags: note.tags,
    notetypeName: notetype.name,
    deckName,
    templateName: template?.name ?? '',
    flags: card.flags,
    cardId: card.id,
    // far past what a side may hold (MAX_CARD_TEXT, checked on what is kept): rendering stops there,
    // whatever a template repeats
    maxLength: RENDER_LIMIT
  })
  const answer = rendered.answer.split(ANSWER_RULE)
  const back = answer.length > 1 ? answer.slice(1).join('') : rendered.answer
  return { kind: 'basic', front: rendered.question.replace(TYPE_ANSWER, '').trim(), back: back.replace(TYPE_ANSWER, '').trim() }
}

/**
 * Where an Anki card stands besides its schedule, as the card model keeps it (domain/card-states.ts):
 * suspended (queue -1), buried by the user or as a sibling (queue -3, -2) until the learner's next
 * day, as Anki unburies at its next day, a sibling's burial marked so that an export writes it back
 * as one; and its flag (the low three bits of Anki's flags).
 */
export interface ImportedStanding {
  suspended?: true
  buriedUntil?: Date
  buriedAsSibling?: true
  flag?: number
}

export function standingOf (card: AnkiCard, now: Date, calendar: UserCalendar): ImportedStanding {
  const flag = card.flags & 7
  return {
    ...(card.queue === CARD_QUEUE.suspended ? { suspended: true } : {}),
    ...(card.queue === CARD_QUEUE.userBuried || card.queue === CARD_QUEUE.schedBuried ? { buriedUntil: buriedUntilAt(now, calendar) } : {}),
    ...(card.queue === CARD_QUEUE.schedBuried ? { buriedAsSibling: true } : {}),
    ...(flag > 0 ? { flag } : {})
  }
}

/** The preset a deck uses: its own, or the collection's default (id 1). */
export function presetOf (collection: Pick<CollectionHeader, 'decks' | 'deckConfigs'>, deckId: number): AnkiDeckConfig | undefined {
  const deck = collection.decks.find((candidate) => candidate.id === deckId)
  return collection.deckConfigs.find((config) => config.id === deck?.configId) ??
    collection.deckConfigs.find((config) => config.id === 1) ?? collection.deckConfigs[0]
}

/** The FSRS parameters a preset carries, as 21 FSRS-6 weights; undefined when it carries none (FSRS's defaults) or unusable ones. */
export function presetParameters (preset: AnkiDeckConfig | undefined): number[] | undefined {
  if (preset === undefined || preset.fsrsParams.length === 0) return undefined
  return fsrsParameters(preset.fsrsParams)
}

const RATINGS: readonly Rating[] = ['again', 'hard', 'good', 'easy']
const DAY_MS = 86_400_000

/** A revlog row's kind as the state the card was in before it. */
function stateBeforeRow (entry: AnkiRevlogEntry, first: boolean): CardState {
  if (entry.kind === REVLOG_KIND.learning) return first ? CardState.New : CardState.Learning
  if (entry.kind === REVLOG_KIND.relearning) return CardState.Relearning
  return CardState.Review
}

/**
 * One row of Anki's review log as the user's imported history keeps it
 * (repositories/review-histories.ts): what fitting reads, and the row as Anki wrote it, for an
 * export to write it back as it came.
 */
export interface HistoryEntry {
  reviewedAt: Date
  /** null for a row with no answer: a card forgotten, given a due date by hand, or rescheduled */
  rating: Rating | null
  /** the user's day of the review, in their calendar */
  day: LocalDay
  /** the card's state before the review, as the row's kind tells it */
  stateBefore: CardState
  /** days when positive, seconds when negative */
  interval: number
  lastInterval: number
  /** the ease after the review, in permille (0 for a learning card) */
  factor: number
  takenMs: number
  /** Anki's kind of row: 0 learning, 1 review, 2 relearning, 3 filtered, 4 manual, 5 rescheduled */
  kind: number
}

/**
 * Every row of a card's log, oldest first, as its history keeps it: the answers, and the manual
 * changes (no button), which are no reviews but which fitting reads as Anki does (a forget ends
 * the history before it) and an export writes back.
 */
export function historyOf (entries: readonly AnkiRevlogEntry[], calendar: UserCalendar): HistoryEntry[] {
  const history: HistoryEntry[] = []
  let answered = false
  for (const entry of entries) {
    // a button Anki never writes is a damaged row, neither an answer nor a manual change
    if (entry.button < 0 || entry.button > 4) continue
    const reviewedAt = new Date(entry.id)
    const rating = entry.button === 0 ? null : RATINGS[entry.button - 1] as Rating
    const kind = kindOfAnkiEntry(entry)
    history.push({
      reviewedAt,
      rating,
      day: dayOf(reviewedAt, calendar),
      stateBefore: stateBeforeRow(entry, !answered),
      interval: entry.interval,
      lastInterval: entry.lastInterval,
      factor: entry.factor,
      takenMs: entry.takenMs,
      kind: entry.kind
    })
    // a forget makes the card new again: its next learning answer starts it afresh, as a new card;
    // a cram answer (a new card previewed in a filtered deck) leaves it new
    answered = kind === 'reset' ? false : answered || (rating !== null && kind !== 'cram')
  }
  return history
}

/** The entries of a history that are answers, not manual changes: what counts as reviews. */
export function answersIn (history: readonly HistoryEntry[]): HistoryEntry[] {
  return history.filter((entry) => entry.rating !== null)
}

/** How a collection's cards are scheduled in the user's calendar. */
export interface SchedulingContext {
  collection: CollectionHeader
  calendar: UserCalendar
  now: Date
  /** the user's offset from UTC now, minutes west: where a collection recorded none */
  userOffsetMinutesWest: number
}

/**
 * The schedules of a collection's cards: memory states replayed from each card's history with its
 * preset's parameters and the collection's day rollover (as Anki computes them), due on the calendar
 * day Anki shows, in the user's calendar.
 */
export function cardScheduler ({ collection, calendar, now, userOffsetMinutesWest }: SchedulingContext) {
  const offset = collectionOffsetMinutesWest(collection.timing, userOffsetMinutesWest)
  const nextDay = nextDayAt(now.getTime() / 1000, offset, collection.timing.rolloverHour ?? 4)
  const replayers = new Map<number, ReturnType<typeof fsrsReplayer> | null>()
  const replayerOf = (deckId: number) => {
    let replayer = replayers.get(deckId)
    if (replayer === undefined) {
      const preset = presetOf(collection, deckId)
      try {
        replayer = fsrsReplayer({
          params: preset?.fsrsParams ?? [],
          historicalRetention: preset?.historicalRetention ?? 0.9,
          ignoreRevlogsBeforeDate: preset?.ignoreRevlogsBeforeDate ?? '',
          nextDayAt: nextDay
        })
      } catch {
        // parameters of a length FSRS does not take: FSRS's defaults
        replayer = fsrsReplayer({ params: [], historicalRetention: preset?.historicalRetention ?? 0.9, nextDayAt: nextDay })
      }
      replayers.set(deckId, replayer)
    }
    return replayer as ReturnType<typeof fsrsReplayer>
  }

  /** The card's schedule; `history` is its rows, oldest first. */
  return (card: AnkiCard, entries: readonly AnkiRevlogEntry[], history: readonly HistoryEntry[]): CardSchedule => {
    if (card.type === CARD_TYPE.new) return newSchedule(now)
    const memory: MemoryState | undefined = replayerOf(homeDeckOf(card)).memoryStateOf(card, entries)
    // the last review as Anki counts it: a cram answer did not reschedule the card
    const last = lastScheduledAnswer(history, (entry) => entry.rating !== null)
    const due = cardDue(card, collection.timing, userOffsetMinutesWest)
    let dueAt: Date
    if (due.kind === 'instant') dueAt = new Date(due.epochSeconds * 1000)
    else if (due.kind === 'day') dueAt = startOfDay(due.day, calendar)
    else dueAt = now
    const lastReview = last?.reviewedAt ??
      (card.lastReviewTime !== undefined ? new Date(card.lastReviewTime * 1000) : null) ??
      (due.kind === 'day' ? startOfDay(addLocalDays(due.day, -Math.max(1, card.interval)), calendar) : null)
    const state = card.type === CARD_TYPE.learning ? CardState.Learning : card.type === CARD_TYPE.relearning ? CardState.Relearning : CardState.Review
    return {
      state,
      due: dueAt,
      stability: memory?.stability ?? 0,
      difficulty: memory?.difficulty ?? 0,
      elapsedDays: lastReview === null ? 0 : Math.max(0, Math.floor((now.getTime() - lastReview.getTime()) / DAY_MS)),
      scheduledDays: state === CardState.Review ? Math.max(1, card.interval) : 0,
      learningSteps: 0,
      reps: card.reps,
      lapses: card.lapses,
      lastReview
    }
  }
}

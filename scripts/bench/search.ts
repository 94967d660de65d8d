// search-cards on a database of its own: one account at the card quota
// (200,000 cards in 200 flashcards of 1,000), made through create-flashcard as
// a learner's imports would make them, so that its search pages are the
// service's own. The cards' words come from a vocabulary of made-up words with
// accents, in a Zipf-like mix: a few words on many cards, most on few. The
// searches: a rare word (on 12 cards, every one found), a common one (the first 50 of
// thousands), two words each common but rarely together, and a word on no
// card; then the first search of an account from before search, which makes
// its pages from its cards (the upgrade path, services/search.ts).
import type { FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import { post, timeInTurns, type Timed } from './load.js'

export const SEARCH_EMAIL = 'bench-search@example.com'
export const SEARCH_PASSWORD = 'bench-search-password'
export const SEARCH_FLASHCARDS = 200
export const SEARCH_CARDS_EACH = 1000
export const SEARCH_CARDS = SEARCH_FLASHCARDS * SEARCH_CARDS_EACH

const SYLLABLES = ['ka', 'lo', 'mé', 'ri', 'sa', 'tu', 'ñe', 'po', 'dü', 'va', 'ze', 'fí', 'go', 'bø', 'ni', 'ra', 'ce', 'hu', 'jo', 'lä']
const VOCABULARY = SYLLABLES.length ** 3

function randomSource (seed: number): () => number {
  let state = seed | 0
  return () => {
    state = (state + 0x6D2B79F5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The n-th word of the vocabulary: q, three syllables, x. No syllable holds a
 * q or an x, and no two syllables fold alike, so that a word is found only
 * where it is written, never inside another.
 */
function wordOf (n: number): string {
  const syllable = (k: number): string => SYLLABLES[Math.floor(n / SYLLABLES.length ** k) % SYLLABLES.length] ?? ''
  return `q${syllable(0)}${syllable(1)}${syllable(2)}x`
}

/** A word of four syllables, of no card but those it is put on. */
const RARE_WORD = 'qkalomérix'
/** the flashcards whose 500th card holds RARE_WORD */
const RARE_EVERY = 17

export interface SearchQueries {
  /** query, and how many cards hold it */
  rare: { query: string, cards: number }
  common: { query: string, cards: number }
  pair: { query: string, cards: number }
  none: { query: string, cards: number }
}

/** The cards of flashcard `f`, and the words each holds. */
function cardsOf (f: number, random: () => number): Array<{ front: string, back: string, words: Set<number> }> {
  return Array.from({ length: SEARCH_CARDS_EACH }, (_, n) => {
    // rank ~ VOCABULARY * r^3: the first words on many cards, most on few
    const pick = (): number => Math.min(VOCABULARY - 1, Math.floor(VOCABULARY * random() ** 3))
    const front = Array.from({ length: 2 + Math.floor(random() * 3) }, pick)
    const back = Array.from({ length: 8 + Math.floor(random() * 9) }, pick)
    const rare = f % RARE_EVERY === 0 && n === 500 ? ` ${RARE_WORD}` : ''
    return {
      front: front.map((word, k) => k === 0 ? wordOf(word).toUpperCase() : wordOf(word)).join(' '),
      back: `${back.map(wordOf).join(' ')}${rare}.`,
      words: new Set([...front, ...back])
    }
  })
}

async function inject (app: FastifyInstance, operation: string, payload: object, expected: number): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload })
  if (response.statusCode !== expected) throw new Error(`${operation}: ${response.statusCode} ${response.body.slice(0, 300)}`)
  return response.json()
}

/** Registers the search user and makes its 200,000 cards through create-flashcard; the queries and how many cards each finds. */
export async function seedSearch (app: FastifyInstance, log: (line: string) => void): Promise<SearchQueries> {
  const { jwtToken } = await inject(app, 'register', { email: SEARCH_EMAIL, password: SEARCH_PASSWORD }, 201) as { jwtToken: string }
  for (let subject = 1; subject <= 10; subject++) {
    for (let topic = 1; topic <= 4; topic++) await inject(app, 'create-folder', { jwtToken, path: [`Subject ${subject}`, `Topic ${topic}`] }, 201)
  }
  const random = randomSource(29)
  const holding = new Map<number, number>()
  let both = 0
  const started = performance.now()
  for (let f = 0; f < SEARCH_FLASHCARDS; f++) {
    const cards = cardsOf(f, random)
    for (const card of cards) {
      for (const word of card.words) holding.set(word, (holding.get(word) ?? 0) + 1)
      if (card.words.has(40) && card.words.has(41)) both += 1
    }
    await inject(app, 'create-flashcard', {
      jwtToken,
      folder: [`Subject ${1 + (f % 10)}`, `Topic ${1 + (f % 4)}`],
      flashcardName: `Set ${f + 1}`,
      cards: cards.map(({ front, back }) => ({ front, back }))
    }, 201)
    if ((f + 1) % 50 === 0) log(`${((f + 1) * SEARCH_CARDS_EACH).toLocaleString('en')} cards made (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  }
  return {
    rare: { query: RARE_WORD.toUpperCase(), cards: Math.ceil(SEARCH_FLASHCARDS / RARE_EVERY) },
    common: { query: wordOf(5).toUpperCase(), cards: holding.get(5) ?? 0 },
    pair: { query: `${wordOf(40)} ${wordOf(41)}`, cards: both },
    none: { query: 'qqqzzz', cards: 0 }
  }
}

export interface SearchFigures {
  queries: SearchQueries
  rare: Timed
  common: Timed
  pair: Timed
  none: Timed
  /** the first search of an account from before search: its pages made from its 200,000 cards, then the search */
  firstAfterUpgrade: number[]
}

function expectFound (cards: number, limit: number): (text: string) => string | null {
  return (text) => {
    const answer = JSON.parse(text) as { results: unknown[], more: string }
    const wanted = Math.min(cards, limit)
    if (answer.results.length !== wanted) return `found ${answer.results.length} cards, not ${wanted}`
    return answer.more === (cards > limit ? 'true' : 'false') ? null : `more: ${answer.more} with ${cards} cards holding the words`
  }
}

/** The searches one after another, each in turn, through HTTP. */
export async function measureSearch (origin: string, queries: SearchQueries, samples: number, warmup: number): Promise<Omit<SearchFigures, 'firstAfterUpgrade'>> {
  const { status, text } = await post(`${origin}/api/login`, JSON.stringify({ email: SEARCH_EMAIL, password: SEARCH_PASSWORD }))
  if (status !== 200) throw new Error(`login: ${status} ${text}`)
  const { jwtToken } = JSON.parse(text) as { jwtToken: string }
  const url = `${origin}/api/search-cards`
  const target = ({ query, cards }: { query: string, cards: number }) => ({ url, body: JSON.stringify({ jwtToken, query }), check: expectFound(cards, 50) })
  const [rare, common, pair, none] = await timeInTurns([target(queries.rare), target(queries.common), target(queries.pair), target(queries.none)], samples, warmup) as [Timed, Timed, Timed, Timed]
  return { queries, rare, common, pair, none }
}

/**
 * `times` times: the account made one from before search (its pages gone,
 * and marked as the start-up migration marks every account) and searched
 * once, in the process (app.inject), which makes its pages from its 200,000 cards.
 */
export async function timeFirstSearchAfterUpgrade (app: FastifyInstance, db: Db, queries: SearchQueries, times: number): Promise<number[]> {
  const { jwtToken, userID } = await inject(app, 'login', { email: SEARCH_EMAIL, password: SEARCH_PASSWORD }, 200) as { jwtToken: string, userID: string }
  const accounts = db.collection<{ _id: string, searchPending?: boolean }>('users')
  const took: number[] = []
  for (let n = 0; n < times; n++) {
    // as an account from before search: no page of any of its cards, marked by the start-up migration
    await db.collection('searchPages').deleteMany({ userID })
    await accounts.updateOne({ _id: userID }, { $set: { searchPending: true } })
    const started = performance.now()
    const answer = await app.inject({ method: 'POST', url: '/api/search-cards', payload: { jwtToken, query: queries.rare.query } })
    took.push(performance.now() - started)
    const problem = answer.statusCode === 200 ? expectFound(queries.rare.cards, 50)(answer.body) : `${answer.statusCode} ${answer.body.slice(0, 200)}`
    if (problem !== null) throw new Error(`the first search after the upgrade: ${problem}`)
    if ((await accounts.findOne({ _id: userID }))?.searchPending === true) throw new Error('the first search after the upgrade left the account marked')
  }
  return took
}

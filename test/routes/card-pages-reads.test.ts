// The pages of cards are bounded in the database too: each query a range of an
// index from the page's start, matching about the cards it returns, never a
// read of every card sliced afterwards (on the embedded database a query's
// cost follows what its filter matches, whatever its limit).
import { test } from 'tap'
import type { CommandStartedEvent, Document } from 'mongodb'
import { MAX_CARDS_PER_PAGE } from '../../src/domain/limits.js'
import { buildTestApp, databaseOf, expectOk, libraryPages, makeDeck, registerUser } from '../helpers/app.js'

// session and transaction fields belong to the command as sent, not to what explain takes
const ENVELOPE = new Set(['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])

/** The stages of a winning plan from the scan up, and the indexes it names. */
function planOf (explained: Document): { stages: string[], indexes: string[] } {
  const stages: string[] = []
  const indexes: string[] = []
  const visit = (node: Document | undefined): void => {
    if (node === undefined) return
    if (node.queryPlan !== undefined) { visit(node.queryPlan as Document); return }
    visit(node.inputStage as Document | undefined)
    for (const input of (node.inputStages as Document[] | undefined) ?? []) visit(input)
    stages.push(String(node.stage))
    if (typeof node.indexName === 'string') indexes.push(node.indexName)
  }
  visit((explained.queryPlanner as Document | undefined)?.winningPlan as Document | undefined)
  return { stages, indexes }
}

test('each page reads ranges of an index from its start, matching about the cards it gives', async (t) => {
  // one instant for every request: the cards' creation orders follow each other, so each window holds what it asks for
  let now = new Date('2026-03-02T10:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now, monitorCommands: true })
  const user = await registerUser(app)
  const deck = await makeDeck(app, user, { folder: ['Reads'], name: 'Deck', cards: 1000 })
  for (let batch = 0; batch < 2; batch++) {
    await expectOk(app, 'add-cards', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cards: Array.from({ length: 750 }, (_, n) => ({ front: `${batch} ${n}`, back: 'b' })) }, 201)
  }
  now = new Date(now.getTime() + 3600_000)
  await makeDeck(app, user, { folder: ['Reads'], name: 'Small', cards: 30 })

  const database = databaseOf(app)
  const reads = async (read: () => Promise<unknown>): Promise<CommandStartedEvent[]> => {
    const sent: CommandStartedEvent[] = []
    const listen = (event: CommandStartedEvent): void => {
      if (event.databaseName === database.databaseName && event.commandName === 'find' && event.command.find === 'cards') sent.push(event)
    }
    app.databaseClient.on('commandStarted', listen)
    try {
      await read()
    } finally {
      app.databaseClient.off('commandStarted', listen)
    }
    return sent
  }
  const check = async (what: string, index: string, sent: CommandStartedEvent[], cards: number) => {
    let matching = 0
    const problems: string[] = []
    for (const event of sent) {
      const command: Document = {}
      for (const [key, value] of Object.entries(event.command)) if (!key.startsWith('$') && !ENVELOPE.has(key)) command[key] = value
      const { stages, indexes } = planOf(await database.command({ explain: command, verbosity: 'queryPlanner' }))
      const matched = await database.collection('cards').countDocuments(command.filter as Document)
      matching += matched
      if (!indexes.includes(index) || stages.includes('SORT') || stages.includes('COLLSCAN')) problems.push(`${JSON.stringify(command.filter)}: ${stages.join(' > ')} on ${indexes.join()}`)
      if (typeof command.limit !== 'number' || command.limit > MAX_CARDS_PER_PAGE + 1) problems.push(`${JSON.stringify(command.filter)}: limit ${String(command.limit)}`)
      if (matched > (command.limit as number)) problems.push(`${JSON.stringify(command.filter)}: ${matched} cards match for a limit of ${String(command.limit)}`)
    }
    t.strictSame(problems, [], `${what}: every query a range of ${index} in its order, with a limit of at most a page and one card, matching no more than its limit`)
    t.ok(matching <= cards + 2, `${what}: ${matching} cards matched in ${sent.length} queries, for ${cards} given`)
  }

  let cursor: string | undefined
  const pages: number[] = []
  do {
    let page: { cards: unknown[], nextCursor?: string } = { cards: [] }
    const sent = await reads(async () => {
      page = await expectOk(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, ...(cursor === undefined ? {} : { cursor }) })
    })
    await check(`get-flashcard, page ${pages.length + 1}`, 'user_flashcard_order', sent, page.cards.length + 1)
    pages.push(page.cards.length)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  t.strictSame(pages, [1000, 1000, 500])

  const librarySent = await reads(async () => await libraryPages(app, user.jwtToken))
  await check('get-all-cards with content, every page', 'user_order', librarySent, 2530 + 3)
})

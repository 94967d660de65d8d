import { randomInt } from 'node:crypto'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { databaseOf, buildTestApp, expectOk, makeDeck, makeFolder, post, registerUser } from './helpers/app.js'

/** What one user owns, by id: two folders, a flashcard of two cards (one reviewed), a goal. */
interface Library {
  jwtToken: string
  folderID: string
  otherFolderID: string
  flashcardID: string
  cardID: string
  reviewedCardID: string
  reviewID: string
  goalID: string
  importID: string
  noteID: string
  noteTypeID: string
}

type Body = Record<string, unknown>

/**
 * Every operation that takes the id of something stored, with each way of
 * naming something the caller does not own. `body(mine, theirs)` builds the
 * request from the caller's library and the one under attack; the fields where
 * body(mine, theirs) and body(mine, mine) differ are the foreign ones.
 */
const CASES: ReadonlyArray<{ operation: string, body: (mine: Library, theirs: Library) => Body }> = [
  { operation: 'rename-folder', body: (_, theirs) => ({ folderID: theirs.folderID, name: 'Renamed' }) },
  { operation: 'move-folder', body: (_, theirs) => ({ folderID: theirs.otherFolderID, parentID: theirs.folderID }) },
  { operation: 'move-folder', body: (mine, theirs) => ({ folderID: theirs.otherFolderID, parentID: mine.folderID }) },
  { operation: 'move-folder', body: (mine, theirs) => ({ folderID: mine.otherFolderID, parentID: theirs.folderID }) },
  { operation: 'delete-folder', body: (_, theirs) => ({ folderID: theirs.folderID }) },
  { operation: 'get-flashcard', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'rename-flashcard', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, name: 'Renamed' }) },
  { operation: 'move-flashcard-set', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, folderID: mine.otherFolderID }) },
  { operation: 'move-flashcard-set', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, folderID: theirs.otherFolderID }) },
  { operation: 'delete-flashcard', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'export-flashcard', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'export-flashcard-zip', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'export-anki', body: (_, theirs) => ({ folderID: theirs.folderID }) },
  { operation: 'export-anki', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'add-cards', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, cards: [{ front: 'planted', back: 'card' }] }) },
  { operation: 'edit-card', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, cardID: theirs.cardID, front: 'changed' }) },
  { operation: 'edit-card', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, cardID: theirs.cardID, front: 'changed' }) },
  { operation: 'edit-card', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, cardID: mine.cardID, front: 'changed' }) },
  { operation: 'delete-card', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, cardID: theirs.cardID }) },
  { operation: 'delete-card', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, cardID: theirs.cardID }) },
  { operation: 'delete-card', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, cardID: mine.cardID }) },
  { operation: 'review-card', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, cardID: theirs.cardID, rating: 'good' }) },
  { operation: 'review-card', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, cardID: theirs.cardID, rating: 'good' }) },
  { operation: 'review-card', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, cardID: mine.cardID, rating: 'good' }) },
  { operation: 'preview-review', body: (_, theirs) => ({ flashcardID: theirs.flashcardID, cardID: theirs.cardID }) },
  { operation: 'preview-review', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, cardID: theirs.cardID }) },
  { operation: 'preview-review', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, cardID: mine.cardID }) },
  ...['suspend-card', 'unsuspend-card', 'bury-card', 'unbury-card', 'flag-card'].flatMap((operation) => {
    const flag = operation === 'flag-card' ? { flag: 2 } : {}
    return [
      { operation, body: (_: Library, theirs: Library) => ({ flashcardID: theirs.flashcardID, cardID: theirs.cardID, ...flag }) },
      { operation, body: (mine: Library, theirs: Library) => ({ flashcardID: mine.flashcardID, cardID: theirs.cardID, ...flag }) },
      { operation, body: (mine: Library, theirs: Library) => ({ flashcardID: theirs.flashcardID, cardID: mine.cardID, ...flag }) }
    ]
  }),
  ...['set-card-standing', 'delete-cards', 'move-cards'].flatMap((operation) => {
    // move-cards moves into the caller's own flashcard: only the cards named are another user's
    const more = (mine: Library) => operation === 'set-card-standing' ? { action: 'suspend' } : operation === 'move-cards' ? { toFlashcardID: mine.flashcardID } : {}
    const selection = (mine: Library, ...cards: Array<{ flashcardID: string, cardID: string }>) => ({ cards, ...more(mine) })
    return [
      { operation, body: (mine: Library, theirs: Library) => selection(mine, { flashcardID: theirs.flashcardID, cardID: theirs.cardID }) },
      { operation, body: (mine: Library, theirs: Library) => selection(mine, { flashcardID: mine.flashcardID, cardID: mine.cardID }, { flashcardID: mine.flashcardID, cardID: theirs.cardID }) },
      { operation, body: (mine: Library, theirs: Library) => selection(mine, { flashcardID: mine.flashcardID, cardID: mine.cardID }, { flashcardID: theirs.flashcardID, cardID: mine.cardID }) }
    ]
  }),
  { operation: 'move-cards', body: (mine, theirs) => ({ cards: [{ flashcardID: mine.flashcardID, cardID: mine.cardID }], toFlashcardID: theirs.flashcardID }) },
  { operation: 'get-study-queue', body: (_, theirs) => ({ folderID: theirs.folderID }) },
  { operation: 'get-study-queue', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'browse-cards', body: (_, theirs) => ({ folderID: theirs.folderID }) },
  { operation: 'browse-cards', body: (_, theirs) => ({ flashcardID: theirs.flashcardID }) },
  { operation: 'edit-goal', body: (_, theirs) => ({ goalID: theirs.goalID, target: 7 }) },
  { operation: 'delete-goal', body: (_, theirs) => ({ goalID: theirs.goalID }) },
  { operation: 'get-import-status', body: (_, theirs) => ({ importID: theirs.importID }) },
  { operation: 'get-note', body: (_, theirs) => ({ noteID: theirs.noteID }) },
  { operation: 'edit-note', body: (_, theirs) => ({ noteID: theirs.noteID, fields: { Front: 'planted' } }) },
  { operation: 'delete-note', body: (_, theirs) => ({ noteID: theirs.noteID }) },
  { operation: 'add-note', body: (mine, theirs) => ({ flashcardID: theirs.flashcardID, noteTypeID: mine.noteTypeID, fields: { Front: 'planted' } }) },
  { operation: 'add-note', body: (mine, theirs) => ({ flashcardID: mine.flashcardID, noteTypeID: theirs.noteTypeID, fields: { Front: 'planted' } }) },
  { operation: 'edit-note-type', body: (_, theirs) => ({ noteTypeID: theirs.noteTypeID, css: '.card { color: red }', fields: [{ name: 'Planted', from: 'Front' }, { name: 'Back' }], templates: [{ name: 'Card 1', from: 'Card 1', front: '{{Planted}}', back: '' }], confirm: true }) },
  { operation: 'delete-note-type', body: (_, theirs) => ({ noteTypeID: theirs.noteTypeID, confirm: true }) }
]

/**
 * Id fields that name no stored thing of the user's: reviewID is a retry key
 * the client makes up. Its isolation has a subtest of its own below.
 */
const CLIENT_KEYS: Readonly<Record<string, readonly string[]>> = { 'review-card': ['reviewID'] }

const NOW = new Date('2026-05-04T12:00:00Z')

async function createLibrary (app: FastifyInstance): Promise<Library> {
  const user = await registerUser(app)
  const { jwtToken } = user
  const folderID = await makeFolder(app, user, ['Private'])
  const otherFolderID = await makeFolder(app, user, ['Elsewhere'])
  const { flashcardID, cardIDs: [cardID = '', reviewedCardID = ''] } = await makeDeck(app, user, {
    folder: ['Private'], name: 'Secrets', cards: [{ front: 'secret front', back: 'secret back' }, { front: 'second', back: 'card' }]
  })
  const reviewID = `review-${randomInt(1e9)}`
  await expectOk(app, 'review-card', { jwtToken, flashcardID, cardID: reviewedCardID, rating: 'good', reviewID })
  const { goalID } = await expectOk<{ goalID: string }>(app, 'create-goal', { jwtToken, type: 'Card', target: 5, end_date: '30/06/2026' }, 201)
  // an import of an Anki package, as one that ended leaves it (running one for each library would take seconds)
  const importID = Array.from({ length: 39 }, () => randomInt(10)).join('')
  const now = new Date()
  await databaseOf(app).collection('imports').insertOne({
    _id: importID as never, userID: user.userID, state: 'done', percent: 100, counts: { cards: 2, notes: 2, reviews: 0, media: 0 }, warnings: [],
    request: { folder: ['Private'], withScheduling: true, fileName: 'Secrets.apkg', path: '' }, holder: '', until: now, createdAt: now, updatedAt: now
  })
  // a note an Anki import kept, with its note type (as an import leaves them; its cards are not needed here)
  const noteTypeID = Array.from({ length: 39 }, () => randomInt(10)).join('')
  const noteID = Array.from({ length: 39 }, () => randomInt(10)).join('')
  await databaseOf(app).collection('noteTypes').insertOne({
    _id: noteTypeID as never, userID: user.userID, ankiID: 1, name: 'Basic', kind: 'standard', fields: ['Front', 'Back'],
    templates: [{ name: 'Card 1', front: '{{Front}}', back: '{{FrontSide}}<hr id=answer>{{Back}}' }], css: '', sortField: 0, createdAt: now, updatedAt: now
  })
  await databaseOf(app).collection('notes').insertOne({
    _id: noteID as never, userID: user.userID, noteTypeID, ankiID: 2, guid: `secret-${noteID}`, fields: ['secret front', 'secret back'], tags: [], modified: 1, createdAt: now
  })
  return { jwtToken, folderID, otherFolderID, flashcardID, cardID, reviewedCardID, reviewID, goalID, importID, noteID, noteTypeID }
}

/** Ids that nobody owns, shaped like real ones. */
function unknownLibrary (): Library {
  const id = (): string => Array.from({ length: 32 }, () => randomInt(10)).join('')
  return { jwtToken: '', folderID: id(), otherFolderID: id(), flashcardID: id(), cardID: id(), reviewedCardID: id(), reviewID: 'nobody', goalID: id(), importID: id(), noteID: id(), noteTypeID: id() }
}

/** Every document of every collection, in a stable order: what must not change. */
async function snapshot (app: FastifyInstance): Promise<Record<string, unknown[]>> {
  const collections = (await databaseOf(app).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name).sort()
  const documents: Record<string, unknown[]> = {}
  for (const name of collections) {
    documents[name] = await databaseOf(app).collection(name).find().sort({ _id: 1 }).toArray()
  }
  return documents
}

function foreignFields (body: (mine: Library, theirs: Library) => Body, mine: Library, theirs: Library): string[] {
  const attack = body(mine, theirs)
  const own = body(mine, mine)
  return Object.keys(attack).filter((field) => JSON.stringify(attack[field]) !== JSON.stringify(own[field]))
}

/** The error text with ids taken out: the answer must not tell another user's id from an unknown one. */
function withoutIds (response: { body: string }): string {
  return response.body.replace(/[0-9]{30,}/g, '<id>')
}

test("another user's ids answer 404, reveal nothing and change nothing", async (t) => {
  const app = await buildTestApp(t, import.meta.filename, { clock: () => NOW })
  const attacker = await createLibrary(app)
  const nobody = unknownLibrary()

  t.test('the table names every id field of every operation that takes one', async (t) => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } } }>
    }
    const required = new Set<string>()
    for (const [path, item] of Object.entries(document.paths)) {
      const properties = item.post?.requestBody?.content?.['application/json']?.schema?.properties ?? {}
      const operation = path.replace(/^\/api\//, '')
      for (const [field, schema] of Object.entries(properties)) {
        if (/ID$/.test(field) && !(CLIENT_KEYS[operation] ?? []).includes(field)) required.add(`${operation} ${field}`)
        // a selection: a list of things each named by its ids (set-card-standing's cards)
        const items = (schema as { items?: { properties?: Record<string, unknown> } }).items?.properties ?? {}
        if (Object.keys(items).some((key) => /ID$/.test(key))) required.add(`${operation} ${field}`)
      }
    }
    t.ok(required.size >= 14, 'the OpenAPI document lists the id-taking operations')
    const covered = new Set(CASES.flatMap(({ operation, body }) => foreignFields(body, attacker, nobody).map((field) => `${operation} ${field}`)))
    t.strictSame([...required].filter((pair) => !covered.has(pair)), [], 'every operation and id field has a case naming another user\'s id')
    t.strictSame([...covered].filter((pair) => !required.has(pair)), [], 'no case names an id field the API does not have')
  })

  for (const { operation, body } of CASES) {
    const foreign = foreignFields(body, attacker, nobody)
    t.test(`${operation} with another user's ${foreign.join(' and ')}`, async (t) => {
      const victim = await createLibrary(app)
      const before = await snapshot(app)

      const attack = await post(app, operation, { jwtToken: attacker.jwtToken, ...body(attacker, victim) })
      t.equal(attack.statusCode, 404, attack.body)
      t.strictSame(await snapshot(app), before, 'no document of anyone changed')
      t.notMatch(attack.body, /Secrets|Private|secret front/, "none of the victim's data in the answer")
      const unknown = await post(app, operation, { jwtToken: attacker.jwtToken, ...body(attacker, nobody) })
      t.equal(withoutIds(attack), withoutIds(unknown), 'the same answer as for an id nobody owns')

      // the request is well-formed: only whose ids they are made it fail
      const own = await post(app, operation, { jwtToken: victim.jwtToken, ...body(victim, victim) })
      // a file (export-flashcard-zip, export-anki) is named by its type, not written into the log
      const answered = String(own.headers['content-type'] ?? '').startsWith('application/json') ? own.body : String(own.headers['content-type'])
      t.ok(own.statusCode >= 200 && own.statusCode < 300, `the owner's own request succeeds (${own.statusCode} ${answered})`)
    })
  }

  t.test("a reviewID another user sent replays nothing of theirs", async (t) => {
    const victim = await createLibrary(app)
    const victimID = (await post(app, 'get-user', { jwtToken: victim.jwtToken })).json().userID as string
    /** The victim's documents in every collection: their account, and everything else that names them. */
    const victimDocuments = async (): Promise<Record<string, unknown[]>> => Object.fromEntries(
      Object.entries(await snapshot(app)).map(([name, documents]) => [name, documents.filter((document) => {
        const { _id: id, userID } = document as { _id: unknown, userID?: unknown }
        return userID === victimID || (name === 'users' && id === victimID)
      })])
    )
    const before = await victimDocuments()
    t.ok(Object.values(before).flat().length >= 7, "the victim's account, folders, flashcard, cards, review and goal")

    const response = await post(app, 'review-card', {
      jwtToken: attacker.jwtToken, flashcardID: attacker.flashcardID, cardID: attacker.cardID, rating: 'easy', reviewID: victim.reviewID
    })
    t.equal(response.statusCode, 200, response.body)
    t.equal(response.json().cardID, attacker.cardID, "the answer is about the caller's own card, not the victim's review")
    t.strictSame(await victimDocuments(), before, "no document of the victim's changed")
  })
})

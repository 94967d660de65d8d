// A learner takes the cards they made here to Anki with export-anki, and brings them back with
// import-anki (after studying them in Anki, say): the cards come back as the cards they are, found by
// the guids the export gave them, never added a second time.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { readAnkiPackageFile } from '../../src/anki/package-file.js'
import { buildTestApp, databaseOf, everyCardOf, expectOk, makeFolder, registerUser, type TestUser } from '../helpers/app.js'
import { exportedFile } from '../helpers/anki-export.js'
import { importAnki, LEARNER } from '../helpers/anki-import.js'
import { assertAnki, needsAnki, runAnkiScript } from '../helpers/pypi-anki.js'
import type { FastifyInstance } from 'fastify'

tap.setTimeout(600_000)

interface Card { cardID: string, front: string, back: string, noteID?: string }

async function madeHere (app: FastifyInstance, user: TestUser): Promise<{ flashcardID: string, cardIDs: string[] }> {
  await makeFolder(app, user, ['Spanish'])
  return await expectOk(app, 'create-flashcard', {
    jwtToken: user.jwtToken,
    folder: ['Spanish'],
    flashcardName: 'Words',
    cards: [
      { front: 'el agua', back: 'the water' },
      { front: 'el <b>perro</b>', back: 'the dog', format: 'html' },
      { cloze: '{{c1::Madrid}} is the capital of {{c2::España}}' }
    ]
  }, 201)
}

/** What the learner holds: their flashcards with the cards' counts, and every card by id with its schedule. */
async function holding (app: FastifyInstance, user: TestUser) {
  const library = await expectOk<{ folders: Array<{ name: string, flashcards: Array<{ flashcardName: string, cards: string }> }> }>(app, 'get-library', { jwtToken: user.jwtToken })
  const cards = await databaseOf(app).collection('cards').find({ userID: user.userID }, { projection: { reps: 1, due: 1, state: 1, flashcardID: 1 } }).sort({ _id: 1 }).toArray()
  return {
    decks: library.folders.flatMap((folder) => folder.flashcards.map((flashcard) => `${folder.name}/${flashcard.flashcardName}: ${flashcard.cards}`)),
    cards: cards.map((card) => JSON.stringify(card))
  }
}

test('an export of cards made here, imported again, updates those cards rather than adding them twice, and carries their guids from then on', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const deck = await madeHere(app, user)
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], rating: 'good' })
  const before = await holding(app, user)
  t.strictSame(before.decks, ['Spanish/Words: 4'])

  const first = await exportedFile(t, app, user)
  const status = await importAnki(app, user.jwtToken, await readFile(first))
  t.equal(status.state, 'done', JSON.stringify(status))
  t.match(status.warnings.join(' '), /4 cards of notes imported before were updated rather than added again/)
  t.strictSame(await holding(app, user), before, 'the same deck and the same four cards, each with its schedule')

  // the way back stays open: the next export writes the same notes under the same guids
  const guids = async (file: string): Promise<string[]> => (await readAnkiPackageFile(file, { onMedia: () => {} })).collection.notes.map((note) => note.guid).sort()
  const second = await exportedFile(t, app, user)
  t.strictSame(await guids(second), await guids(first), 'the second export names the notes as the first did')
  t.equal((await importAnki(app, user.jwtToken, await readFile(second))).state, 'done')
  t.strictSame(await holding(app, user), before, 'and importing it changes nothing more')
})

test('cards made here, studied and edited in Anki, come back edited into the cards they were, schedules kept', needsAnki, async (t) => {
  assertAnki()
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  const deck = await madeHere(app, user)
  const before = await holding(app, user)
  const folder = await mkdtemp(join(tmpdir(), 'import-own-export-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  const studied = join(folder, 'studied.apkg')
  const done = JSON.parse(runAnkiScript('edit_in_anki.py', [await exportedFile(t, app, user), studied, 'the water', 'the sea water'], LEARNER.timezone)) as { edited: number, answered: number }
  t.strictSame(done, { edited: 1, answered: 4 }, 'Anki edited one note and answered every card')

  const status = await importAnki(app, user.jwtToken, await readFile(studied))
  t.equal(status.state, 'done', JSON.stringify(status))
  t.strictSame(await holding(app, user), before, 'the same deck and the same four cards, their schedules as they were here')
  const cards = await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID)
  t.strictSame(cards.map((card) => card.cardID), deck.cardIDs, 'under their ids')
  const water = cards.find((card) => card.cardID === deck.cardIDs[0])
  t.match(water?.back, /the sea water/, 'showing the edit made in Anki')
  t.ok(water?.noteID !== undefined, 'a card of a note now')
})

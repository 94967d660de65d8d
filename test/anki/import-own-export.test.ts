// A learner takes the cards they made here to Anki with export-anki, and brings them back with
// import-anki (after studying them in Anki, say): the cards come back as the cards they are, found by
// the guids the export gave them, never added a second time.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { test, type Test } from 'tap'
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
  const cards = await databaseOf(app).collection('cardStates').find({ userID: user.userID }, { projection: { reps: 1, due: 1, state: 1, flashcardID: 1 } }).sort({ _id: 1 }).toArray()
  return {
    decks: library.folders.flatMap((folder) => folder.flashcards.map((flashcard) => `${folder.name}/${flashcard.flashcardName}: ${flashcard.cards}`)),
    cards: cards.map((card) => JSON.stringify(card))
  }
}

/**
 * A learner whose deck was made here an hour ago (so that a change made in Anki now is later than that), on a
 * service whose clock the test moves, and the path of a package Anki is to write (removed after the test).
 */
async function learnerAnHourAgo (t: Test) {
  const clock = { now: new Date(Date.now() - 3600_000) }
  const app = await buildTestApp(t, import.meta.filename, { clock: () => clock.now })
  const user = await registerUser(app, LEARNER)
  const deck = await madeHere(app, user)
  const folder = await mkdtemp(join(tmpdir(), 'import-own-export-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  return { clock, app, user, deck, studied: join(folder, 'studied.apkg') }
}

test('an export of cards made here, imported again, finds those cards rather than adding them twice: unchanged, or changed here since, they stay as they are', async (t) => {
  // an hour ago, so that a change made in Anki now is later than the cards' making
  let now = new Date(Date.now() - 3600_000)
  const app = await buildTestApp(t, import.meta.filename, { clock: () => now })
  const user = await registerUser(app, LEARNER)
  const deck = await madeHere(app, user)
  await expectOk(app, 'review-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], rating: 'good' })
  const before = await holding(app, user)
  t.strictSame(before.decks, ['Spanish/Words: 4'])

  const first = await exportedFile(t, app, user)
  const status = await importAnki(app, user.jwtToken, await readFile(first))
  t.equal(status.state, 'done', JSON.stringify(status))
  t.match(status.warnings.join(' '), /4 cards of notes the account has were left as they are/)
  t.strictSame(await holding(app, user), before, 'the same deck and the same four cards, each with its schedule')

  // the learner edits a card here after the export: the export, older, leaves the edit
  now = new Date(now.getTime() + 60_000)
  await expectOk(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[0], back: 'the water, edited here' })
  t.equal((await importAnki(app, user.jwtToken, await readFile(first))).state, 'done')
  t.strictSame(await holding(app, user), before, 'nothing added')
  const water = (await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID)).find((card) => card.cardID === deck.cardIDs[0])
  t.equal(water?.back, 'the water, edited here', 'and the edit made here stays')

  // the next export names the notes as the first did, and is as old as the cards' last change here, not as the export
  now = new Date(now.getTime() + 60_000)
  const second = await exportedFile(t, app, user)
  const notes = async (file: string) => (await readAnkiPackageFile(file, { onMedia: () => {} })).collection.notes.map((note) => ({ guid: note.guid, modified: note.modified })).sort((a, b) => a.guid < b.guid ? -1 : 1)
  const [firstNotes, secondNotes] = [await notes(first), await notes(second)]
  t.strictSame(secondNotes.map((note) => note.guid), firstNotes.map((note) => note.guid), 'the second export names the notes as the first did')
  t.ok(secondNotes.every((note) => note.modified * 1000 < now.getTime() - 30_000), 'each note as old as its last change here')
  t.equal(secondNotes.filter((note, index) => note.modified !== firstNotes[index]?.modified).length, 1, 'the edited one later than before')
})

test('cards made here, studied and edited in Anki, come back edited into the cards they were, schedules kept', needsAnki, async (t) => {
  assertAnki()
  const { clock, app, user, deck, studied } = await learnerAnHourAgo(t)
  const before = await holding(app, user)
  const exported = await exportedFile(t, app, user)
  // the deck exported again a minute after Anki's edit, nothing changed here: Anki keeps its own edit, newer than the cards' text
  clock.now = new Date(Date.now() + 60_000)
  const later = await exportedFile(t, app, user)
  const done = JSON.parse(runAnkiScript('edit_in_anki.py', [exported, studied, 'the water', 'the sea water', later], LEARNER.timezone)) as { edited: number, answered: number, fields: string[][] }
  t.strictSame({ edited: done.edited, answered: done.answered }, { edited: 1, answered: 4 }, 'Anki edited one note and answered every card')
  t.ok(done.fields.some((fields) => fields.includes('the sea water')), 'and kept its edit when the export came again')

  const status = await importAnki(app, user.jwtToken, await readFile(studied))
  t.equal(status.state, 'done', JSON.stringify(status))
  t.match(status.warnings.join(' '), /1 card of notes the account has was updated rather than added again/)
  t.strictSame(await holding(app, user), before, 'the same deck and the same four cards, their schedules as they were here')
  const cards = await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID)
  t.strictSame(cards.map((card) => card.cardID), deck.cardIDs, 'under their ids')
  const water = cards.find((card) => card.cardID === deck.cardIDs[0])
  t.match(water?.back, /the sea water/, 'showing the edit made in Anki')
  t.ok(water?.noteID !== undefined, 'a card of a note now')

  // from then on it carries its note's guid: the next export and import find it by that
  const again = await importAnki(app, user.jwtToken, await readFile(await exportedFile(t, app, user)))
  t.equal(again.state, 'done', JSON.stringify(again))
  t.strictSame(await holding(app, user), before, 'nothing added')
})

test('a note made here and changed in Anki, then changed here again, is left whole by the import: its card of a number added in Anki comes only when asked for, and never twice', needsAnki, async (t) => {
  assertAnki()
  const { clock, app, user, deck, studied } = await learnerAnHourAgo(t)
  // in Anki: a third deletion added to the cloze note
  const done = JSON.parse(runAnkiScript('edit_in_anki.py', [await exportedFile(t, app, user), studied, '{{c2::España}}', '{{c2::España}} in {{c3::Europe}}'], LEARNER.timezone)) as { edited: number }
  t.equal(done.edited, 1)
  // then here, later: the cloze note edited
  clock.now = new Date(Date.now() + 60_000)
  await expectOk(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID: deck.flashcardID, cardID: deck.cardIDs[2], cloze: '{{c1::Madrid}} is the capital city of {{c2::España}}' })
  const before = await holding(app, user)
  for (const round of [1, 2]) {
    const status = await importAnki(app, user.jwtToken, await readFile(studied))
    t.equal(status.state, 'done', JSON.stringify(status))
    t.match(status.warnings.join(' '), /and 1 card the package has of those notes was not added/, `import ${round}: the card of the number added is not added`)
    t.strictSame(await holding(app, user), before, `import ${round}: the same four cards`)
  }
  const cloze = (await everyCardOf<Card>(app, user.jwtToken, deck.flashcardID)).find((card) => card.cardID === deck.cardIDs[2])
  t.match(cloze?.front, /capital city/, 'the edit made here stays')

  // asked for: the package's text, with the card of its third number, once
  const always = await importAnki(app, user.jwtToken, await readFile(studied), { updateNotes: 'always' })
  t.equal(always.state, 'done', JSON.stringify(always))
  t.equal((await holding(app, user)).cards.length, 5, 'the card of the third number added')
  t.equal((await importAnki(app, user.jwtToken, await readFile(studied))).state, 'done')
  t.equal((await holding(app, user)).cards.length, 5, 'and not again at the next import')
})

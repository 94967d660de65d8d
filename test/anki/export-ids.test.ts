// The ids export-anki writes are the same at every export: a deck's, a note's and a card's, whatever
// the export's time and scope, and a deck an Anki import made keeps the id Anki's collection gave it.
// Read back with the project's own reader (src/anki/package-file.ts).
import { test } from 'tap'
import { DERIVED_DECK_IDS, noteGuid } from '../../src/domain/anki/export.js'
import { exportedFile, libraryWithHistory, packageIds } from '../helpers/anki-export.js'
import { fixture, importAnki, LEARNER } from '../helpers/anki-import.js'
import { buildTestApp, databaseOf, expectOk, registerUser } from '../helpers/app.js'
import { FIXTURES } from '../helpers/anki.js'
import { join } from 'node:path'

const DAY = 86_400_000

/** The entries of `part` that `whole` holds too, as `whole` has them. */
function asIn (whole: Record<string, number>, part: Record<string, number>): Record<string, number | undefined> {
  return Object.fromEntries(Object.keys(part).map((key) => [key, whole[key]]))
}

test('the whole library, then a folder a day later: the same deck, note and card ids for the same folders, flashcards and cards', async (t) => {
  const { app, user, ids, setNow } = await libraryWithHistory(t, import.meta.filename)
  const whole = await packageIds(await exportedFile(t, app, user))
  setNow(new Date(Date.now() + DAY))
  // Other and its Misc were made in the millisecond the cards of Pictures & sounds were
  const other = await packageIds(await exportedFile(t, app, user, { folderID: ids.other }))
  const languages = await packageIds(await exportedFile(t, app, user, { folderID: ids.spanish }))
  const verbs = await packageIds(await exportedFile(t, app, user, { flashcardID: ids.verbs }))

  for (const [name, part] of Object.entries({ other, languages, verbs })) {
    t.strictSame(part.decks, asIn(whole.decks, part.decks), `${name}: every deck under its id in the whole library's export`)
    t.strictSame(part.notes, asIn(whole.notes, part.notes), `${name}: every note`)
    t.strictSame(part.cards, asIn(whole.cards, part.cards), `${name}: every card`)
  }
  t.strictSame(Object.keys(other.cards).length, 1, 'Misc\'s card is in the folder\'s export')
  t.equal(Object.keys(verbs.cards).length, 4, 'and the four verbs in the flashcard\'s')

  const deckIds = Object.entries(whole.decks).filter(([name]) => name !== 'Default').map(([, id]) => id)
  t.equal(new Set(deckIds).size, deckIds.length, 'no two decks share an id')
  t.ok(deckIds.every((id) => id >= DERIVED_DECK_IDS.from && id < DERIVED_DECK_IDS.from + DERIVED_DECK_IDS.span && Number.isSafeInteger(id)),
    'each deck made here has an id in the derived range, which no deck Anki made has')
  t.equal(whole.decks.Default, 1, 'Default is Anki\'s own')
  const cardIds = Object.values(whole.cards)
  t.equal(new Set(cardIds).size, cardIds.length, 'no two cards share an id')
  const now = Date.now()
  t.ok(cardIds.every((id) => id > now - 41 * DAY && id < now), 'a card\'s id is about when it was made, as Anki reads it')
})

test('a deck Anki had keeps its id through the import and the export, and no answer shows it', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, LEARNER)
  t.equal((await importAnki(app, user.jwtToken, fixture('collection.apkg'))).state, 'done')
  const anki = await packageIds(join(FIXTURES, 'collection.apkg'))
  const exported = await packageIds(await exportedFile(t, app, user))

  // a deck with subdecks, or at the top, is a folder of its name, which has its id; its own cards a flashcard in it
  const kept = Object.keys(anki.decks).filter((name) => name !== 'Default' && exported.decks[name] !== undefined)
  t.strictSame(kept.sort(), ['A', 'A::B', 'A::B::C', 'Langues', 'Langues::Français'], 'every deck of Anki\'s is a deck of the export')
  t.strictSame(asIn(exported.decks, Object.fromEntries(kept.map((name) => [name, anki.decks[name] as number]))), Object.fromEntries(kept.map((name) => [name, anki.decks[name]])),
    'under the id Anki\'s collection gave it')
  t.strictSame(asIn(exported.notes, anki.notes), anki.notes, 'every note under its id')
  t.strictSame(asIn(exported.cards, anki.cards), anki.cards, 'every card under its id')
  const again = await packageIds(await exportedFile(t, app, user, { folderID: (await expectOk<{ folders: Array<{ folderID: string, name: string }> }>(app, 'get-library', { jwtToken: user.jwtToken })).folders.find((folder) => folder.name === 'A')?.folderID as string }))
  t.strictSame(again.decks, asIn(exported.decks, again.decks), 'a folder\'s export writes the same deck ids')

  for (const operation of ['get-today-cards', 'get-all-cards', 'get-library']) {
    const answer = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: { jwtToken: user.jwtToken } })
    t.equal(answer.statusCode, 200, operation)
    t.notMatch(answer.body, /ankiID|ankiNoteID|lastAnkiID/, `${operation} shows no Anki id`)
  }
})

test('cards made in one millisecond get ids of their own, a cloze note made here one its cards share (a number added later too), and a card from before the ids its creation time', async (t) => {
  const T = Date.parse('2026-06-01T10:00:00Z')
  const app = await buildTestApp(t, import.meta.filename, { clock: () => new Date(T) })
  const user = await registerUser(app, LEARNER)
  await expectOk(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Ids'] }, 201)
  const { flashcardID, cardIDs } = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: user.jwtToken, folder: ['Ids'], flashcardName: 'Deck', cards: [{ front: 'a', back: 'b' }, { cloze: '{{c1::x}} {{c2::y}}' }, { front: 'c', back: 'd' }]
  }, 201)
  const cards = databaseOf(app).collection<{ _id: string, ankiID?: number, ankiNoteID?: number, noteID?: string, clozeNumber?: number }>('cards')
  const stored = async (cardID: string) => await cards.findOne({ _id: cardID })
  const made = await Promise.all(cardIDs.map(stored))
  t.strictSame(made.map((card) => card?.ankiID), [T + 1, T + 2, T + 3, T + 4], 'one request\'s cards, one millisecond: each an id of its own, from the creation time on')
  t.strictSame(made.map((card) => card?.ankiNoteID), [undefined, T, T, undefined], 'the cloze note one its cards share')
  await expectOk(app, 'edit-card', { jwtToken: user.jwtToken, flashcardID, cardID: cardIDs[1], cloze: '{{c1::x}} {{c2::y}} {{c3::z}}' })
  const third = (await cards.find({ userID: user.userID, noteID: made[1]?.noteID } as never).toArray()).find((card) => card.clozeNumber === 3)
  t.equal(third?.ankiNoteID, T, 'a number added later shares it')
  t.ok((third?.ankiID ?? 0) > T + 4, 'with an id of its own past the others')

  // a card made before the ids were kept has none: the export gives it its creation time, as before
  await cards.updateOne({ _id: cardIDs[3] as string }, { $unset: { ankiID: '' } })
  const ids = await packageIds(await exportedFile(t, app, user))
  t.equal(ids.cards[`${noteGuid(cardIDs[3] as string)}/0`], T, 'a card without an id is written under its creation time')
})

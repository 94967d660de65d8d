// A card's standing through export-anki, as Anki's own importer (PyPI `anki`) takes it: suspended
// cards in queue -1, buried ones in -3 (by the user) or -2 (as a sibling) with their type kept,
// flags in `flags`; a burial whose day has begun is over. Cards suspended, buried and flagged
// through the API, and cards that came so from an Anki package made by Anki itself.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { noteGuid } from '../../src/domain/anki/export.js'
import { userDay } from '../../src/domain/calendar.js'
import { CardState } from '../../src/domain/scheduling.js'
import type { CardDocument } from '../../src/repositories/cards.js'
import { exportedFile, libraryWithHistory, storedOf } from '../helpers/anki-export.js'
import { importAnki } from '../helpers/anki-import.js'
import { buildTestApp, databaseOf, expectOk, registerUser } from '../helpers/app.js'
import { assertAnki, importIntoAnki, needsAnki, runAnkiScript } from '../helpers/pypi-anki.js'

// making the environment the first time downloads Anki's wheels; an import runs a worker of its own
t.setTimeout(15 * 60 * 1000)

const TIMEZONE = 'America/New_York'
const DAY = 86_400_000
/** Anki's card type of each state: 0 new, 1 learning, 2 review, 3 relearning */
const ANKI_TYPE: Readonly<Record<CardState, number>> = { [CardState.New]: 0, [CardState.Learning]: 1, [CardState.Review]: 2, [CardState.Relearning]: 3 }

t.test('cards suspended, buried and flagged through the API reach Anki suspended, buried by the user and flagged', needsAnki, async (t) => {
  assertAnki()
  const now = new Date()
  const { app, user, ids, setNow } = await libraryWithHistory(t, import.meta.filename, now)
  const [be, have, go, say] = ids.verbCards as [string, string, string, string]
  const [madrid, spain] = ids.clozeCards as [string, string]
  const call = async (operation: string, flashcardID: string, cardID: string, more: object = {}): Promise<unknown> =>
    await expectOk(app, operation, { jwtToken: user.jwtToken, flashcardID, cardID, ...more })

  await call('suspend-card', ids.verbs, be)
  await call('flag-card', ids.verbs, be, { flag: 3 })
  await call('bury-card', ids.verbs, go)
  await call('flag-card', ids.verbs, go, { flag: 6 })
  await call('bury-card', ids.verbs, say)
  await call('suspend-card', ids.verbs, have)
  await call('bury-card', ids.verbs, have)
  await call('flag-card', ids.pictures, ids.pictureCard, { flag: 7 })
  await call('flag-card', ids.pictures, madrid, { flag: 1 })
  // buried yesterday: its burial ended when today began, though no read of today's cards has put it back
  setNow(new Date(now.getTime() - DAY))
  await call('bury-card', ids.pictures, spain)
  setNow(now)

  const imported = importIntoAnki(await exportedFile(t, app, user), TIMEZONE)
  t.same(imported.problems.filter((line) => !/^Database rebuilt and optimized/.test(line)), [], 'Anki\'s Check Database repairs nothing')
  const { cards } = await storedOf(app, user.userID)
  // the queue a card's schedule gives (export-pypi-anki.test.ts checks each): learning due today 1, on a later day 3
  const endOfToday = userDay(now, { timezone: TIMEZONE, dayStartHour: 4 }).end
  const scheduled = (state: CardState, due: Date): number => state === CardState.New ? 0 : state === CardState.Review ? 2 : due < endOfToday ? 1 : 3
  const standings: Record<string, { queue?: number, flags: number, what: string }> = {
    [be]: { queue: -1, flags: 3, what: 'suspended, flagged green' },
    [have]: { queue: -1, flags: 0, what: 'suspended and buried: suspended, as Anki keeps it' },
    [go]: { queue: -3, flags: 6, what: 'buried by the user, flagged turquoise' },
    [say]: { queue: -3, flags: 0, what: 'a new card buried by the user' },
    [ids.pictureCard]: { flags: 7, what: 'flagged purple' },
    [madrid]: { flags: 1, what: 'flagged red' },
    [spain]: { flags: 0, what: 'buried until a day begun already: ordinary' }
  }
  let compared = 0
  for (const card of cards) {
    const got = imported.cards.find((candidate) => candidate.guid === noteGuid(card.noteID ?? card._id) && candidate.ord === (card.clozeNumber ?? 1) - 1)
    const want = standings[card._id] ?? { flags: 0, what: 'ordinary' }
    const what = `${card.front.slice(0, 20)} (${card.clozeNumber ?? ''}): ${want.what}`
    if (got === undefined) {
      t.fail(`${what}: in Anki`)
      continue
    }
    t.same({ type: got.type, queue: got.queue, flags: got.flags },
      { type: ANKI_TYPE[card.state], queue: want.queue ?? scheduled(card.state, card.due), flags: want.flags }, what)
    compared++
  }
  t.equal(compared, cards.length, 'every card')
})

t.test('an Anki package\'s suspended, buried and flagged cards, imported and exported again, come back to Anki as they were', needsAnki, async (t) => {
  assertAnki()
  const folder = await mkdtemp(join(tmpdir(), 'anki-standing-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  const made = join(folder, 'standing.apkg')
  // as Anki itself left them, through its own operations: suspended, buried by the user or as a sibling, flagged
  const inAnki = JSON.parse(runAnkiScript('standing_package.py', [made], TIMEZONE)) as Array<{ guid: string, ord: number, type: number, queue: number, flags: number }>
  t.same(new Set(inAnki.map((card) => card.queue)), new Set([-3, -2, -1, 2]), 'the package holds every standing')

  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app, { timezone: TIMEZONE })
  const status = await importAnki(app, user.jwtToken, await readFile(made))
  t.equal(status.state, 'done', JSON.stringify(status))
  const imported = importIntoAnki(await exportedFile(t, app, user), TIMEZONE)
  t.same(imported.problems.filter((line) => !/^Database rebuilt and optimized/.test(line)), [], 'Anki\'s Check Database repairs nothing')
  t.equal(imported.cards.length, inAnki.length, 'every card')
  for (const want of inAnki) {
    const got = imported.cards.find((card) => card.guid === want.guid && card.ord === want.ord)
    t.same(got === undefined ? undefined : { type: got.type, queue: got.queue, flags: got.flags },
      { type: want.type, queue: want.queue, flags: want.flags }, `${want.guid}/${want.ord}: type ${want.type}, queue ${want.queue}, flags ${want.flags}`)
  }

  // buried again by the learner here, the sibling's burial is theirs
  const sibling = await databaseOf(app).collection<CardDocument>('cards').findOne({ userID: user.userID, ankiGuid: 'standing-siblings', ankiOrd: 1 })
  if (sibling === null) throw new Error('the buried sibling was not imported')
  await expectOk(app, 'bury-card', { jwtToken: user.jwtToken, flashcardID: sibling.flashcardID, cardID: sibling._id })
  const again = importIntoAnki(await exportedFile(t, app, user), TIMEZONE).cards.find((card) => card.guid === 'standing-siblings' && card.ord === 1)
  t.same(again === undefined ? undefined : { queue: again.queue, flags: again.flags }, { queue: -3, flags: 5 }, 'bury-card makes a sibling\'s burial the user\'s')
})

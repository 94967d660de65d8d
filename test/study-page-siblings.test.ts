// Siblings in the study page, in Chromium: the page holds a page of today's cards, so the
// siblings an answer buries at the service (review-card's buriedSiblings) must leave the
// cards it holds too, or the learner meets the cards of one note back to back anyway.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 180_000 }

test('after a card of a cloze note is answered, the next card shown is of another note, not its sibling', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Spanish'] }, 201)
  const deck = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Spanish'],
    flashcardName: 'Capitals',
    // new cards come in creation order: the note's three cards, then Car
    cards: [{ cloze: '{{c1::Madrid}} is the capital of {{c2::España}}, in {{c3::Europa}}' }, { front: 'Car', back: 'Auto' }]
  }, 201)

  await page.goto(`${study.base}/#/study/deck/${deck.flashcardID}`, { waitUntil: 'load' })
  const front = async (): Promise<string> => await (await page.waitForFunction(() => document.querySelector('#study-card #card-front')?.textContent ?? false)).jsonValue() as string
  t.match(await front(), /\[\.\.\.\] is the capital of España/, 'the first card is the note\'s first')
  await click(page, '#show-answer')
  await click(page, '.rating[data-rating="good"]')
  await page.waitForFunction(() => !(document.querySelector('#study-card #card-front')?.textContent ?? '').includes('is the capital of'))
  t.match(await front(), /Car/, 'the next is the other note\'s card, its siblings buried until tomorrow')
  await click(page, '#show-answer')
  await click(page, '.rating[data-rating="good"]')
  // the two learning cards come back in minutes; no sibling of the first note is among the cards left
  const status = await (await page.waitForFunction(() => {
    const text = document.querySelector('#study-status')?.textContent ?? ''
    return /2 answers/.test(text) ? text : false
  })).jsonValue() as string
  t.match(status, /^2 cards left/, 'two cards left: the two answered, due again in minutes; not the buried siblings')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('Settings: with "Bury new siblings" unticked, the note\'s second card still comes today, after the first card of every note', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Spanish'] }, 201)
  const deck = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Spanish'],
    flashcardName: 'Capitals',
    cards: [{ cloze: '{{c1::Madrid}} is the capital of {{c2::España}}' }, { front: 'Car', back: 'Auto' }]
  }, 201)

  await goTo(page, 'settings')
  await page.waitForSelector('#bury-new-siblings')
  t.same(await page.$$eval('.sibling-settings input', (boxes) => boxes.map((box) => (box as HTMLInputElement).checked)), [true, true, false], 'the settings as the account has them')
  await click(page, '#bury-new-siblings')
  await click(page, '#settings-form button[type="submit"]')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent === 'Settings saved.')
  const user = await expectOk<{ buryNewSiblings: string, buryReviewSiblings: string }>(app, 'get-user', { jwtToken: token })
  t.same([user.buryNewSiblings, user.buryReviewSiblings], ['false', 'true'], 'saved: new siblings no longer buried, review siblings still')

  await page.goto(`${study.base}/#/study/deck/${deck.flashcardID}`, { waitUntil: 'load' })
  const front = async (): Promise<string> => await (await page.waitForFunction(() => document.querySelector('#study-card #card-front')?.textContent ?? false)).jsonValue() as string
  t.match(await front(), /\[\.\.\.\] is the capital of España/)
  await click(page, '#show-answer')
  await click(page, '.rating[data-rating="good"]')
  await page.waitForFunction(() => !(document.querySelector('#study-card #card-front')?.textContent ?? '').startsWith('[...]'))
  // Anki's order of new cards, card type then order gathered: Car, a note's first card, before the cloze note's second
  t.equal(await front(), 'FrontCar', 'the first card of the next note comes between')
  await click(page, '#show-answer')
  await click(page, '.rating[data-rating="good"]')
  await page.waitForFunction(() => !(document.querySelector('#study-card #card-front')?.textContent ?? 'FrontCar').endsWith('Car'))
  t.match(await front(), /Madrid is the capital of \[\.\.\.\]/, 'then the sibling, not buried')
  t.same(study.consoleErrors, [], 'no console errors')
})

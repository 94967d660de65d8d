// The card browser's link to a card, #/library/card/<flashcardID>/<cardID>, in Chromium: the deck opens
// in the library and the card is brought into view, also one past the deck's first page of 1,000 cards.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { openStudyPage, withoutChromium } from './helpers/study-page.js'

test('a link to the 1,050th card of a deck opens the deck with that card in view', { skip: withoutChromium, timeout: 180_000 }, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Big'] }, 201)
  const cards = (from: number, count: number) => Array.from({ length: count }, (_, index) => ({ front: `word ${from + index}`, back: `meaning ${from + index}` }))
  const { flashcardID } = await expectOk<{ flashcardID: string }>(app, 'create-flashcard', { jwtToken: token, folder: ['Big'], flashcardName: 'Words', cards: cards(1, 1000) }, 201)
  const { cardIDs } = await expectOk<{ cardIDs: string[] }>(app, 'add-cards', { jwtToken: token, flashcardID, cards: cards(1001, 100) }, 201)
  const wanted = cardIDs[49] as string
  await page.evaluate((hash) => { location.hash = hash }, `#/library/card/${flashcardID}/${wanted}`)
  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector(`#card-list [data-card-id="${wanted}"].card-found`, { timeout: 60_000 })
  t.match(await page.$eval(`#card-list [data-card-id="${wanted}"]`, (item) => item.textContent), /word 1050/, 'the card, past the first page, found and marked')
  t.ok(await page.$eval(`#card-list [data-card-id="${wanted}"]`, (item) => {
    const box = item.getBoundingClientRect()
    return box.top >= 0 && box.bottom <= window.innerHeight
  }), 'in view')
})

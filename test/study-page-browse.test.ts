// The Browse screen, in Chromium: a card suspended through the API is found again with
// the Suspended filter, selected and unsuspended, and is back in the study queue; the
// table sorts by due; two cards selected are deleted, after a question; one is moved to another deck; at 375 px the
// table scrolls inside its box, not the page; a card's first line opens it in its deck.
// With STUDY_PAGE_SCREENSHOTS=1 it writes docs/study-page-browse.png and its -375 twin.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, docsScreenshot, goTo, openStudyPage, pageIsNoWiderThan, withoutChromium } from './helpers/study-page.js'

const DAY = 86_400_000
const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }

const SPANISH = [['hola', 'hello'], ['adiós', 'goodbye'], ['gracias', 'thank you'], ['por favor', 'please'], ['el perro', 'the dog'], ['la casa', 'the house']]
const CHEMISTRY = [['H₂O', 'water'], ['NaCl', 'table salt'], ['CO₂', 'carbon dioxide']]

test('a suspended card found in Browse, unsuspended there, back in the study queue; sorted by due; two deleted; at 1280 and 375 px', BROWSER_TEST, async (t) => {
  let offset = -10 * DAY
  const study = await openStudyPage(t, import.meta.filename, { clock: () => new Date(Date.now() + offset) })
  const { page, app, token } = study
  const deck = async (folder: string[], name: string, cards: string[][]) => {
    await expectOk(app, 'create-folder', { jwtToken: token, path: folder }, 201)
    return await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
      jwtToken: token, folder, flashcardName: name, cards: cards.map(([front, back]) => ({ front, back }))
    }, 201)
  }
  const spanish = await deck(['Languages', 'Spanish'], 'Greetings', SPANISH)
  const chemistry = await deck(['Science'], 'Chemistry', CHEMISTRY)
  for (const [cardID, rating] of [[chemistry.cardIDs[0], 'easy'], [chemistry.cardIDs[1], 'good'], [spanish.cardIDs[1], 'hard']] as const) {
    await expectOk(app, 'review-card', { jwtToken: token, flashcardID: cardID === spanish.cardIDs[1] ? spanish.flashcardID : chemistry.flashcardID, cardID, rating })
  }
  offset = 0
  const [hola] = spanish.cardIDs
  await expectOk(app, 'suspend-card', { jwtToken: token, flashcardID: spanish.flashcardID, cardID: hola })
  await expectOk(app, 'flag-card', { jwtToken: token, flashcardID: chemistry.flashcardID, cardID: chemistry.cardIDs[2], flag: 4 })
  await expectOk(app, 'bury-card', { jwtToken: token, flashcardID: spanish.flashcardID, cardID: spanish.cardIDs[5] })
  const queued = async (): Promise<string[]> =>
    (await expectOk<{ cards: Array<{ cardID: string }> }>(app, 'get-study-queue', { jwtToken: token })).cards.map((card) => card.cardID)
  t.notOk((await queued()).includes(hola as string), 'suspended: not in the study queue')

  await goTo(page, 'browse')
  await page.waitForFunction(() => document.querySelectorAll('#browse-table tbody tr').length === 9)
  t.equal(await page.$eval('#browse-summary', (summary) => summary.textContent), 'Showing 9 of 9 cards.')
  t.equal(await page.$eval(`tr[data-card-id="${hola}"] .browse-standing`, (cell) => cell.textContent), 'Suspended', 'suspended shown as a badge')
  t.equal(await page.$eval(`tr[data-card-id="${hola}"] .browse-note-type`, (cell) => cell.textContent), 'Basic', 'a card made here, as Anki\'s Basic')
  await docsScreenshot(page, 'study-page-browse.png')

  // sort by due: the studied cards by their due day, then the new ones; the header says so
  await click(page, '#browse-table th[data-sort="due"] button')
  await page.waitForSelector('#browse-table th[data-sort="due"][aria-sort="ascending"]')
  await page.waitForFunction((first) => document.querySelector('#browse-table tbody tr')?.getAttribute('data-card-id') === first, {}, spanish.cardIDs[1])
  const dues = await page.$$eval('#browse-table tbody .browse-due', (cells) => cells.map((cell) => cell.textContent))
  t.strictSame(dues.slice(3), ['–', '–', '–', '–', '–', '–'], 'the new cards after the studied ones')
  t.equal(await page.$eval('#browse-table th[data-sort="created"]', (th) => th.getAttribute('aria-sort')), 'none')
  await click(page, '#browse-table th[data-sort="due"] button')
  await page.waitForSelector('#browse-table th[data-sort="due"][aria-sort="descending"]')

  // the Suspended filter finds it; select it, unsuspend
  await page.select('#browse-standing', 'suspended')
  await page.waitForFunction((cardID) => {
    const rows = document.querySelectorAll('#browse-table tbody tr')
    return rows.length === 1 && rows[0]?.getAttribute('data-card-id') === cardID
  }, {}, hola)
  t.equal(await page.$eval('#browse-summary', (summary) => summary.textContent), 'Showing 1 of 1 card.')
  t.ok(await page.$eval('button[data-action="unsuspend"]', (action) => (action as HTMLButtonElement).disabled), 'no action before a card is selected')
  // by the keyboard: the select-all box, then the action
  await page.focus('#browse-select-all')
  await page.keyboard.press('Space')
  await page.waitForFunction(() => document.querySelector('#browse-selected')?.textContent === '1 card selected')
  await click(page, 'button[data-action="unsuspend"]')
  await page.waitForFunction(() => document.querySelector('#browse-summary')?.textContent === 'No card matches.')
  await page.select('#browse-standing', '')
  await page.waitForFunction((cardID) => document.querySelector(`tr[data-card-id="${cardID}"] .browse-standing`)?.textContent === '–', {}, hola)
  t.pass('shown as not suspended')
  t.ok((await queued()).includes(hola as string), 'back in the study queue')

  // select two cards and delete them: asked first, in place, then gone from the table and the library
  for (const cardID of chemistry.cardIDs.slice(0, 2)) await click(page, `tr[data-card-id="${cardID}"] input[type="checkbox"]`)
  await page.waitForFunction(() => document.querySelector('#browse-selected')?.textContent === '2 cards selected')
  await click(page, 'button[data-action="delete"]')
  t.equal(await page.$eval('.browse-actions .confirm-question', (question) => question.textContent),
    'Delete 2 selected cards? Their reviews still count; a cloze card\'s deletion becomes plain text in its note.', 'asked first, naming how many')
  await click(page, '.browse-actions .confirm button.danger')
  await page.waitForFunction(() => document.querySelector('#browse-summary')?.textContent === 'Showing 7 of 7 cards.')
  t.equal(await page.$$eval('#browse-table tbody tr', (rows) => rows.filter((row) => row.querySelector('input:checked') !== null).length), 0, 'nothing selected any more')
  t.ok(await page.$eval('button[data-action="delete"]', (action) => (action as HTMLButtonElement).disabled), 'the Delete button back, waiting for a selection')
  const left = await expectOk<{ cards: Array<{ cardID: string }> }>(app, 'get-flashcard', { jwtToken: token, flashcardID: chemistry.flashcardID })
  t.strictSame(left.cards.map((card) => card.cardID), [chemistry.cardIDs[2]], 'the deck keeps its third card only')

  // the last Chemistry card moved into Greetings: its deck shown anew, and the library's decks as moved
  t.ok(await page.$eval('button[data-action="move"]', (action) => (action as HTMLButtonElement).disabled), 'Move waits for a selection and a deck')
  await click(page, `tr[data-card-id="${chemistry.cardIDs[2] as string}"] input[type="checkbox"]`)
  const greetings = await page.$eval('#browse-move-to', (select, id) => [...(select as HTMLSelectElement).options].find((option) => option.value === id)?.textContent ?? '', spanish.flashcardID)
  t.equal(greetings, 'Languages › Spanish › Greetings', 'each deck named by its path')
  await page.select('#browse-move-to', spanish.flashcardID)
  await click(page, 'button[data-action="move"]')
  await page.waitForFunction((cardID) => document.querySelector(`tr[data-card-id="${cardID}"] td:nth-child(3)`)?.textContent === 'Languages › Spanish › Greetings', {}, chemistry.cardIDs[2])
  t.match(await page.$eval('#notice-message', (notice) => notice.textContent), /1 card moved to Languages › Spanish › Greetings/)
  const moved = await expectOk<{ cards: Array<{ cardID: string }> }>(app, 'get-flashcard', { jwtToken: token, flashcardID: spanish.flashcardID })
  t.ok(moved.cards.some((card) => card.cardID === chemistry.cardIDs[2]), 'the card is in Greetings')
  t.strictSame((await expectOk<{ cards: unknown[] }>(app, 'get-flashcard', { jwtToken: token, flashcardID: chemistry.flashcardID })).cards, [], 'and Chemistry is empty')

  // a narrow screen: the page keeps its width, the table scrolls inside its box
  await page.setViewport({ width: 375, height: 800 })
  await page.waitForFunction(() => document.documentElement.scrollWidth <= 375)
  t.ok(await pageIsNoWiderThan(page, 375), 'nothing of the page scrolls sideways at 375 px')
  t.ok(await page.$eval('.browse-table-box', (box) => box.scrollWidth > box.clientWidth), 'the table scrolls inside its box')
  await docsScreenshot(page, 'study-page-browse-375.png')

  // a card's first line opens it in its deck, brought into view, to edit there
  await click(page, `tr[data-card-id="${spanish.cardIDs[2] as string}"] .browse-sort-field a`)
  await page.waitForSelector(`#card-list [data-card-id="${spanish.cardIDs[2] as string}"].card-found`)
  t.equal(await page.$eval('#library-panel h2', (heading) => heading.textContent), 'Greetings', 'the card\'s deck is open in the library')
  t.ok(await page.$eval(`#card-list [data-card-id="${spanish.cardIDs[2] as string}"]`, (item) => item.querySelector('button') !== null), 'with the card\'s own buttons (Edit)')

  t.strictSame(study.consoleErrors, [], 'no console errors')
  t.strictSame(await study.cspViolations(), [], 'the content security policy holds')
  t.strictSame(study.foreignRequests, [])
})

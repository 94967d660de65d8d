// Choosing what to study, and acting on the card on show, in Chromium: the library shows
// per folder and per deck the cards due and new today; a deck or a folder is studied alone,
// from the library or from the picker of the study screen; the card on show is edited (the
// change shows at once), buried, suspended (each taken back from its notice), flagged and
// deleted, as the service then has it.
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, goTo, openFlashcard, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 100_000 }

interface CardRead { cardID: string, front: string, suspended: string, flag: string, buriedUntil?: string }

async function frontOnShow (page: Page): Promise<string> {
  await page.waitForFunction(() => document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null &&
    document.querySelector('#study-editor') === null)
  return await page.$eval('#card-front .card-text', (text) => text.textContent ?? '')
}

/** Answers every card left with "easy"; the fronts shown, in order. */
async function studyToTheEnd (page: Page): Promise<string[]> {
  const fronts: string[] = []
  for (let shown = 0; shown < 20; shown += 1) {
    await page.waitForFunction(() => document.querySelector('#session-end') !== null ||
      (document.querySelector('#card-front') !== null && document.querySelector('#card-back') === null))
    if (await page.$('#session-end') !== null) return fronts
    const front = await frontOnShow(page)
    fronts.push(front)
    await page.keyboard.press('Space')
    await page.waitForSelector('#card-back')
    await page.keyboard.press('4')
    await page.waitForFunction((was) => document.querySelector('#session-end') !== null ||
      (document.querySelector('#card-back') === null && document.querySelector('#card-front .card-text')?.textContent !== was), {}, front)
  }
  throw new Error('the session did not end')
}

/** Waits for `front` to be the card on show; true when it came. */
async function cameToFront (page: Page, front: string): Promise<boolean> {
  return await page.waitForFunction((wanted) => document.querySelector('#card-back') === null && document.querySelector('#study-editor') === null &&
    document.querySelector('#card-front .card-text')?.textContent === wanted, { timeout: 10_000 }, front).then(() => true, () => false)
}

async function todayOf (page: Page, selector: string): Promise<{ due: string | null, new: string | null }> {
  return await page.$eval(`${selector} .today-counts`, (counts) => ({ due: counts.getAttribute('data-due'), new: counts.getAttribute('data-new') }))
}

test('the library counts due and new cards per folder and deck; one deck or one folder is studied alone', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const deck = async (folder: string[], name: string, fronts: string[]) => {
    await expectOk(app, 'create-folder', { jwtToken: token, path: folder }, 201)
    return await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
      jwtToken: token, folder, flashcardName: name, cards: fronts.map((front) => ({ front, back: `${front}!` }))
    }, 201)
  }
  const spanish = await deck(['Languages', 'Spanish'], 'Greetings', ['hola', 'adiós', 'gracias'])
  await deck(['Languages', 'French'], 'Salut', ['bonjour', 'merci'])
  await deck(['Maths'], 'Sums', ['1+1', '2+2'])
  // one Spanish card reviewed a while ago is no longer new, and not due today
  await expectOk(app, 'review-card', { jwtToken: token, flashcardID: spanish.flashcardID, cardID: spanish.cardIDs[2], rating: 'easy' })

  await page.reload({ waitUntil: 'load' })
  await page.waitForSelector('.tree-item-flashcard[data-name="Greetings"]')
  t.same(await todayOf(page, '.tree-item-flashcard[data-name="Greetings"]'), { due: '0', new: '2' }, 'a deck: nothing due, 2 new (the third reviewed, not due)')
  t.same(await todayOf(page, '.tree-item-folder[data-name="Languages"]'), { due: '0', new: '4' }, 'a folder counts everything below it')
  t.same(await todayOf(page, '.tree-item-folder[data-name="Maths"]'), { due: '0', new: '2' }, 'another folder, its own')
  t.match(await page.$eval('.tree-item-flashcard[data-name="Greetings"]', (item) => item.textContent), /0 due · 2 new/, 'in words beside the deck')

  // a deck alone, from its panel in the library
  await openFlashcard(page, 'Greetings')
  t.same(await todayOf(page, '#library-panel .study-link-row'), { due: '0', new: '2' }, 'its panel says the same')
  await click(page, '#study-this')
  await page.waitForFunction((id) => location.hash === `#/study/deck/${id}`, {}, spanish.flashcardID)
  await frontOnShow(page)
  t.equal(await page.$eval('#count-new', (count) => count.getAttribute('data-count')), '2', 'the header counts that deck\'s cards only')
  await page.waitForFunction(() => document.querySelector('#screen h1')?.textContent === 'Study: Greetings')
  t.pass('the heading names the deck studied')
  t.same((await studyToTheEnd(page)).sort(), ['adiós', 'hola'], 'only that deck\'s cards, then the end')

  // a folder alone, from the picker of the study screen
  await goTo(page, 'study')
  await page.waitForFunction(() => document.querySelectorAll('#study-choice option').length > 1)
  const folders = await page.$$eval('#study-choice option', (options) => options.map((option) => option.textContent?.trim()))
  t.ok(folders.includes('Maths (0 due, 2 new)') && folders.some((name) => name?.startsWith('Everything (0 due, 4 new)')),
    'the picker offers everything and each folder and deck, with their counts')
  const maths = await page.$$eval('#study-choice option', (options) => options.find((option) => option.textContent?.trim().startsWith('Maths'))?.getAttribute('value'))
  await page.select('#study-choice', maths ?? '')
  await page.waitForFunction(() => location.hash.startsWith('#/study/folder/'))
  t.same((await studyToTheEnd(page)).sort(), ['1+1', '2+2'], 'only that folder\'s cards')
  await page.select('#study-choice', '#/study')
  t.same((await studyToTheEnd(page)).sort(), ['bonjour', 'merci'], 'then everything: what is left of the library')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('the card on show: edited (shown at once), buried and suspended (taken back from the notice), flagged, deleted', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Words'] }, 201)
  const deck = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Words'], flashcardName: 'Spanish', cards: ['uno', 'dos', 'tres', 'cuatro'].map((front) => ({ front, back: `${front}!` }))
  }, 201)
  const cardNamed = async (front: string): Promise<CardRead | undefined> =>
    (await expectOk<{ cards: CardRead[] }>(app, 'get-flashcard', { jwtToken: token, flashcardID: deck.flashcardID })).cards.find((card) => card.front === front)

  await goTo(page, 'study')
  t.equal(await frontOnShow(page), 'uno', 'the first card')

  // edit: the change shows at once, and the service has it
  await click(page, '#card-edit')
  await page.waitForSelector('#study-editor textarea')
  const front = '#study-editor textarea'
  await page.$eval(front, (field) => { (field as HTMLTextAreaElement).value = '' })
  await page.type(front, 'uno (one)')
  await click(page, '#study-editor button[type="submit"]')
  t.ok(await cameToFront(page, 'uno (one)'), 'the card on show has its new text at once')
  t.ok(await cardNamed('uno (one)'), 'and the service has the edit')
  t.equal(await page.$eval('#count-new', (count) => count.getAttribute('data-count')), '4', 'the card is still to study')

  // bury: the next card comes; Undo in the notice brings it back
  await click(page, '#card-bury')
  t.ok(await cameToFront(page, 'dos'), 'buried: the next card comes')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent?.startsWith('Card buried until tomorrow.') === true)
  t.match((await cardNamed('uno (one)'))?.buriedUntil, /^\d\d\/\d\d\/\d{4}$/, 'the service has it buried until the next day')
  t.equal(await page.$eval('#count-new', (count) => count.getAttribute('data-count')), '3', 'and it is no longer counted')
  await click(page, '#notice-undo')
  t.ok(await cameToFront(page, 'uno (one)'), 'Undo: the buried card is back in front')
  await page.waitForFunction(() => document.querySelector('#count-new')?.getAttribute('data-count') === '4')
  t.equal((await cardNamed('uno (one)'))?.buriedUntil, undefined, 'and no longer buried')

  // suspend, by Anki's key
  await page.keyboard.press('@')
  t.ok(await cameToFront(page, 'dos'), 'suspended: the next card comes')
  t.equal((await cardNamed('uno (one)'))?.suspended, 'true', 'the service has it suspended')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent?.startsWith('Card suspended') === true)

  // flag: marked on the card, kept by the service; taken off the same way
  await page.select('#card-flag', '1')
  await page.waitForSelector('#card-flag-mark.flag-1')
  t.equal(await page.$eval('#card-flag-mark', (mark) => mark.textContent), 'Red flag', 'the card shows its flag')
  t.equal((await cardNamed('dos'))?.flag, '1', 'the service has it flagged red')
  await page.select('#card-flag', '0')
  await page.waitForSelector('#card-flag-mark', { hidden: true })
  t.equal((await cardNamed('dos'))?.flag, '0', 'and the flag off again')

  // delete, asked first
  await click(page, '#card-delete')
  await click(page, '.card-tools button.danger')
  t.ok(await cameToFront(page, 'tres'), 'deleted: the next card comes')
  t.equal(await cardNamed('dos'), undefined, 'the service no longer has it')
  t.same(study.consoleErrors, [], 'no console errors')
})

test('search: cards found by what they show, whatever the case and accents; a result opens its deck of more than a page of cards, every card shown and the one found in view', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Music', 'Spanish'] }, 201)
  // a thousand cards, get-flashcard's first page, before the one to find: it comes on the second page
  const fillers = Array.from({ length: 1000 }, (_, index) => ({ front: `palabra ${index}`, back: `word ${index}` }))
  const songs = await expectOk<{ flashcardID: string, cardIDs: string[] }>(app, 'create-flashcard', {
    jwtToken: token, folder: ['Music', 'Spanish'], flashcardName: 'Canciones', cards: fillers
  }, 201)
  songs.cardIDs.push(...(await expectOk<{ cardIDs: string[] }>(app, 'add-cards', {
    jwtToken: token, flashcardID: songs.flashcardID, cards: [{ front: 'la canción', back: 'the song' }]
  }, 201)).cardIDs)
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Other'] }, 201)
  await expectOk(app, 'create-flashcard', { jwtToken: token, folder: ['Other'], flashcardName: 'Elsewhere', cards: [{ front: 'hello', back: 'hola' }] }, 201)

  await page.reload({ waitUntil: 'load' })
  await page.type('#search-query', 'CANCION')
  await page.keyboard.press('Enter')
  await page.waitForSelector('#search-results .search-result')
  const results = await page.$$eval('#search-results .search-result', (buttons) => buttons.map((button) => ({
    id: button.getAttribute('data-card-id'), snippet: button.querySelector('.search-snippet')?.textContent, place: button.querySelector('.search-place')?.textContent
  })))
  t.same(results, [{ id: songs.cardIDs[1000], snippet: 'la canción the song', place: 'Music › Spanish › Canciones' }], 'one card found, named with its deck and folder')
  await click(page, '#search-results .search-result')
  await page.waitForFunction(() => document.querySelector('#library-panel h2')?.textContent === 'Canciones')
  await page.waitForSelector('#card-list .card-found')
  t.equal(await page.$eval('#card-list .card-found', (item) => item.getAttribute('data-card-id')), songs.cardIDs[1000], 'the result opens its deck, the card found marked')
  t.ok(await page.$eval('#card-list .card-found', (item) => { const box = item.getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight }),
    'and in view, below a thousand other cards')
  t.ok(await page.$eval('#card-list .card-found', (item) => item === document.activeElement), 'with the focus on it')
  t.same(await page.$$eval('#card-list .card-item', (items) => items.map((item) => item.getAttribute('data-card-id'))), songs.cardIDs,
    'the deck shows all its 1,001 cards, in the order they were made')
  t.equal(await page.$eval('#library-panel .panel-path', (path) => path.textContent), 'Deck in Music › Spanish · 1,001 cards', 'and counts them all')
  t.equal(await page.$('#cards-loading'), null, 'with nothing more said to be loading')

  await page.$eval('#search-query', (input) => { (input as HTMLInputElement).value = '' })
  await page.type('#search-query', 'zzz')
  await page.keyboard.press('Enter')
  await page.waitForFunction(() => document.querySelector('#search-results')?.textContent === 'No card shows "zzz".')
  t.pass('a search that finds nothing says so')
  t.same(study.consoleErrors, [], 'no console errors')
})

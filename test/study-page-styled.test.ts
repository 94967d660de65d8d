// A card of an imported note type, in Chromium: the note type's CSS styles the card as Anki
// would (its colour, font, alignment, the class names of its templates), and nothing else: a rule that names the page's
// elements, a brace left open to end the confinement, and a layer drawn over the whole
// window each stay inside the card, so the answer buttons stay visible and pressable. A card
// made here keeps the page's own look. With STUDY_PAGE_SCREENSHOTS=1 it writes
// docs/study-page-styled.png.
import type { IncomingMessage } from 'node:http'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { craftedPackage } from './helpers/anki-craft.js'
import { importAnki } from './helpers/anki-import.js'
import { click, docsScreenshot, goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 120_000 }

const CSS = [
  '.card { font-family: serif; font-size: 28px; color: rgb(10, 80, 30); background-color: rgb(255, 250, 235); text-align: left; }',
  'b { color: rgb(200, 0, 0); }',
  // a class of the note type's own, and one that would pass for a cloze deletion
  '.word { text-decoration: underline; } .cloze { color: rgb(0, 0, 255); }',
  // what would restyle the page around the card, were it not confined
  'body, button, nav, .rating { display: none !important; background: black !important; }',
  '.card::after { content: ""; position: fixed; inset: 0; background: rgba(200, 120, 0, 0.12); z-index: 99999; }',
  // a brace left open to close the confinement, then a rule for the whole page
  '} body { visibility: hidden !important; } .x {'
].join('\n')

test('an imported card styled by its note type\'s CSS, confined to the card; a card made here keeps the page\'s look', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const file = await craftedPackage(t, { cards: 1, revlog: 0, decks: [['Styled']], fields: () => ['<b class="word">el agua</b> <span class="cloze">fría</span>', 'cold water'] }, (db) => {
    const models = JSON.parse(String(db.prepare('select models from col').get()?.models)) as Record<string, { css: string }>
    for (const model of Object.values(models)) model.css = CSS
    db.prepare('update col set models = ?').run(JSON.stringify(models))
  })
  t.equal((await importAnki(app, token, file, { withScheduling: 'false' })).state, 'done')
  const { noteTypes } = await expectOk<{ noteTypes: Array<{ noteTypeID: string, css: string }> }>(app, 'get-note-types', { jwtToken: token })
  t.equal(noteTypes[0]?.css, CSS, 'the note type kept with its CSS as written')

  // a card made here, after the imported one
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Mine'] }, 201)
  await expectOk(app, 'create-flashcard', { jwtToken: token, folder: ['Mine'], flashcardName: 'Plain', cards: [{ front: 'plain front', back: 'plain back' }] }, 201)

  await goTo(page, 'study')
  await page.waitForSelector('#card-front .card-styled .card b')
  // the sheet arrives with get-note-types, after the card is drawn
  await page.waitForFunction(() => getComputedStyle(document.querySelector('#card-front .card') as Element).color === 'rgb(10, 80, 30)')
  const look = await page.$eval('#card-front .card', (card) => {
    const style = getComputedStyle(card)
    const bold = card.querySelector('b') as Element
    return {
      font: style.fontFamily, size: style.fontSize, align: style.textAlign, background: style.backgroundColor,
      bold: getComputedStyle(bold).color, underlined: getComputedStyle(bold).textDecorationLine, classes: [...card.querySelectorAll('[class]')].map((element) => element.className)
    }
  })
  t.strictSame(look, { font: 'serif', size: '28px', align: 'left', background: 'rgb(255, 250, 235)', bold: 'rgb(200, 0, 0)', underlined: 'underline', classes: ['word'] },
    'the card has the note type\'s font, size, colours and alignment, and its own class names; "cloze" in the source is not kept')
  t.equal(await page.$eval('body', (body) => getComputedStyle(body).visibility), 'visible', 'the open brace ends nothing: the page stays visible')
  t.equal(await page.$eval('nav', (nav) => getComputedStyle(nav).display === 'none'), false, 'the page\'s own elements keep their look')
  const button = await page.$eval('#show-answer', (shown) => {
    const box = shown.getBoundingClientRect()
    const atCentre = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)
    return { display: getComputedStyle(shown).display, onTop: atCentre === shown || shown.contains(atCentre) }
  })
  t.not(button.display, 'none', 'Show answer is shown')
  t.ok(button.onTop, 'and nothing is drawn over it')
  await docsScreenshot(page, 'study-page-styled.png')
  await click(page, '#show-answer')
  await page.waitForSelector('#card-back .card-styled .card')
  t.equal(await page.$eval('#card-back .card', (card) => getComputedStyle(card).color), 'rgb(10, 80, 30)', 'the back too')
  t.ok(await page.$eval('.rating[data-rating="good"]', (rating) => {
    const box = rating.getBoundingClientRect()
    const atCentre = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)
    return getComputedStyle(rating).display !== 'none' && (atCentre === rating || rating.contains(atCentre))
  }), 'the answer buttons are shown and can be pressed')

  // the next card, made here: the page's own look, no note type
  await click(page, '.rating[data-rating="easy"]')
  await page.waitForFunction(() => document.querySelector('#card-front .card-text')?.textContent === 'plain front')
  t.equal(await page.$('#card-front .card-styled'), null, 'a card made here is not styled by any note type')
  t.not(await page.$eval('#card-front .card-text', (text) => getComputedStyle(text).color), 'rgb(10, 80, 30)', 'nor coloured by one')
  t.strictSame(study.consoleErrors, [], 'no console errors')
  t.strictSame(await study.cspViolations(), [], 'the content security policy holds')
})

test('without a network, the note type\'s CSS kept in the browser styles the card', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const file = await craftedPackage(t, { cards: 1, revlog: 0, decks: [['Styled']], fields: () => ['<b class="word">el agua</b>', 'water'] }, (db) => {
    const models = JSON.parse(String(db.prepare('select models from col').get()?.models)) as Record<string, { css: string }>
    for (const model of Object.values(models)) model.css = CSS
    db.prepare('update col set models = ?').run(JSON.stringify(models))
  })
  t.equal((await importAnki(app, token, file, { withScheduling: 'false' })).state, 'done')
  const styled = async (): Promise<void> => {
    await goTo(page, 'study')
    await page.waitForSelector('#card-front .card-styled .card b')
    await page.waitForFunction(() => getComputedStyle(document.querySelector('#card-front .card') as Element).color === 'rgb(10, 80, 30)')
  }
  await styled()
  t.pass('styled with the note types read from the service')

  // the service cannot be reached for the note types: the connection drops, as with no network
  let cut = 0
  app.server.on('request', (request: IncomingMessage) => {
    if ((request.url ?? '').endsWith('/get-note-types')) {
      cut += 1
      request.socket.destroy()
    }
  })
  await page.reload({ waitUntil: 'load' })
  await styled()
  t.ok(cut > 0, 'the page asked for the note types, and got no answer')
  t.pass('styled all the same, with the CSS the browser kept')
})

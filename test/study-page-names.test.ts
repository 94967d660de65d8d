// Names in Chromium, as a learner reads them: the library's names wrap between words and
// never inside one that fits on a line (the counts beside a name go below it instead);
// and a deck of an Anki import's top-level deck, a deck of the folder's own name, is
// named once where the page says where a card comes from, not "A › A".
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { fixture, importAnki } from './helpers/anki-import.js'
import { click, goTo, openStudyPage, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }

/**
 * The words of the library's names that are broken across lines though they would fit on
 * a line of their row by themselves, each as "name: word".
 */
async function wordsBrokenThatFit (page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const broken: string[] = []
    const measure = document.createElement('canvas').getContext('2d')
    for (const name of document.querySelectorAll<HTMLElement>('.tree-name')) {
      const text = name.firstChild
      const row = name.closest('.tree-item')
      if (text === null || row === null || measure === null) continue
      const style = getComputedStyle(row)
      const rowWidth = row.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2
      measure.font = getComputedStyle(name).font
      let at = 0
      for (const word of (name.textContent ?? '').split(' ')) {
        const range = document.createRange()
        range.setStart(text, at)
        range.setEnd(text, at + word.length)
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
        if (lines.size > 1 && measure.measureText(word).width <= rowWidth) broken.push(`${name.textContent ?? ''}: ${word}`)
        at += word.length + 1
      }
    }
    return broken
  })
}

test('library names wrap between words, at 1280 and 375 px', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const deck = async (folder: string[], name: string) => {
    await expectOk(app, 'create-folder', { jwtToken: token, path: folder }, 201)
    await expectOk(app, 'create-flashcard', { jwtToken: token, folder, flashcardName: name, cards: [{ front: 'a', back: 'b' }, { front: 'c', back: 'd' }, { front: 'e', back: 'f' }] }, 201)
  }
  await deck(['EnglishGerman'], 'EnglishGerman')
  await deck(['Languages'], 'Pronunciation exercises')
  await deck(['Languages', 'German', 'Vocabulary'], 'EnglishGerman dictionary')
  await deck(['Mathematics', 'Computing'], 'Binary and hexadecimal')
  await deck(['Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen'], 'Short')

  for (const width of [1280, 375]) {
    await page.setViewport({ width, height: 900 })
    await page.reload({ waitUntil: 'load' })
    await page.waitForSelector('.tree-item-folder[data-name="EnglishGerman"]')
    t.same(await wordsBrokenThatFit(page), [], `${width} px: no word broken that fits its row`)
    const long = await page.$eval('.tree-item-folder[data-name^="Donau"] .tree-name', (name) => name.getBoundingClientRect().width <= (name.closest('.tree-item')?.getBoundingClientRect().width ?? 0))
    t.ok(long, `${width} px: a word longer than its row wraps within it`)
  }
  t.same(study.consoleErrors, [], 'no console errors')
})

test('a deck of its folder\'s name, as an Anki import makes for a top-level deck, is named once', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  // the package's deck A holds cards and has subdecks: its own cards are a deck A in a folder A
  const imported = await importAnki(app, token, fixture('collection.apkg'), { withScheduling: 'false' })
  t.equal(imported.state, 'done', 'the package is imported')
  interface Folder { name: string, folders: Folder[], flashcards: Array<{ flashcardID: string, flashcardName: string }> }
  const library = await expectOk<{ folders: Folder[] }>(app, 'get-library', { jwtToken: token })
  const folderA = library.folders.find((folder) => folder.name === 'A')
  const deckA = folderA?.flashcards.find((flashcard) => flashcard.flashcardName === 'A')
  const deckB = folderA?.folders.find((folder) => folder.name === 'B')?.flashcards.find((flashcard) => flashcard.flashcardName === 'B')
  if (deckA === undefined || deckB === undefined) throw new Error(`no deck A in folder A, or B in A › B: ${JSON.stringify(library.folders)}`)

  await page.goto(`${study.base}/#/study/deck/${deckA.flashcardID}`, { waitUntil: 'load' })
  t.equal(await cardSource(page), 'A', 'a card of deck A in folder A comes from "A"')
  await page.goto(`${study.base}/#/study/deck/${deckB.flashcardID}`, { waitUntil: 'load' })
  t.equal(await cardSource(page, 'A'), 'A › B', 'one of deck B in folder A › B from "A › B"')

  await goTo(page, 'library')
  await page.type('#search-query', 'Capital France')
  await click(page, '.search-form button[type="submit"]')
  await page.waitForSelector('.search-place')
  const places = await page.$$eval('.search-place', (found) => found.map((place) => place.textContent ?? ''))
  t.ok(places.includes('A'), `a search finds it in "A" (${places.join(', ')})`)
  t.notOk(places.some((place) => /(?:^| › )([^›]+) › \1$/.test(place)), 'and names no deck twice')
  t.same(study.consoleErrors, [], 'no console errors')
})

/**
 * The source line of the card on show, once there is one (other than `not`), read in the
 * same moment it is found: the study screen draws its stage again as the queue arrives.
 */
async function cardSource (page: Page, not?: string): Promise<string> {
  const found = await page.waitForFunction((previous) => {
    const text = document.querySelector('#study-card .card-source')?.textContent
    return text !== undefined && text !== null && text !== previous ? text : false
  }, {}, not)
  return await found.jsonValue() as string
}

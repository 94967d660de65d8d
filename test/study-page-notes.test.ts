// A note an Anki import brought, edited on the page, in Chromium: Edit on one card of a reversed
// note opens the note's fields by their names (Anki's editor), and saving shows the change on
// both of its cards; the schedule of each stays. With STUDY_PAGE_SCREENSHOTS=1 it writes
// docs/study-page-note-editor.png.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { fixture, importAnki, LEARNER } from './helpers/anki-import.js'
import { click, docsScreenshot, emptyFlashcard, goTo, openFlashcard, openStudyPage, withoutChromium } from './helpers/study-page.js'
import { storedCard, storedCards } from './helpers/stored.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 180_000 }

test('Edit on a card of an imported reversed note edits the note: both of its cards show the change', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'update-settings', { jwtToken: token, timezone: LEARNER.timezone })
  t.equal((await importAnki(app, token, fixture('collection.apkg'))).state, 'done')
  const [dog1, dog2] = (await storedCards(app)).filter((card) => card.ankiGuid === 'fixture-reversed').sort((a, b) => (a.ankiOrd ?? 0) - (b.ankiOrd ?? 0))
  if (dog1 === undefined || dog2 === undefined) throw new Error('the reversed note was not imported')

  await goTo(page, 'library')
  await page.reload()
  await goTo(page, 'library')
  await openFlashcard(page, 'Français')
  await click(page, `.card-item[data-card-id="${String(dog1._id)}"] button[aria-label^="Edit"]`)
  await page.waitForSelector('.edit-note-form textarea[data-field="Front"]')
  const fields = await page.$$eval('.edit-note-form label', (labels) => labels.map((label) => label.textContent))
  t.strictSame(fields, ['Front', 'Back', 'Tags'], 'the note\'s fields by their names, and its tags')
  t.equal(await page.$eval('.edit-note-form textarea[data-field="Front"]', (area) => (area as HTMLTextAreaElement).value), 'dog', 'the front as Anki keeps it')
  await page.$eval('.edit-note-form textarea[data-field="Front"]', (area) => { (area as HTMLTextAreaElement).value = '' })
  await page.type('.edit-note-form textarea[data-field="Front"]', 'the dog')
  await docsScreenshot(page, 'study-page-note-editor.png')
  await click(page, '.edit-note-form button[type="submit"]')
  await page.waitForFunction(() => /Note saved: 2 cards/.test(document.querySelector('#notice-message')?.textContent ?? ''))
  await page.waitForFunction((id) => /the dog/.test(document.querySelector(`.card-item[data-card-id="${id}"]`)?.textContent ?? ''), {}, String(dog2._id))
  t.match(await page.$eval(`.card-item[data-card-id="${String(dog1._id)}"]`, (item) => item.textContent), /the dog/, 'card 1 shows the edited front')
  t.match(await page.$eval(`.card-item[data-card-id="${String(dog2._id)}"]`, (item) => item.textContent), /the dog/, 'card 2 shows it too')
  const after = await storedCard(app, dog2._id)
  t.same([after?.due, after?.reps, after?.stability], [dog2.due, dog2.reps, dog2.stability], 'card 2 keeps its schedule')
})

test('Add a note of another type: a Basic (and reversed card) note added on the page makes its two cards', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await emptyFlashcard(study, 'Animals', 'Words')
  await goTo(page, 'library')
  await page.reload()
  await goTo(page, 'library')
  await openFlashcard(page, 'Animals')
  await click(page, '.add-note-section summary')
  await page.waitForSelector('.add-note-form .note-type-choice')
  const types = await page.$$eval('.add-note-form .note-type-choice option', (options) => options.map((option) => option.textContent))
  t.strictSame(types, ['Basic', 'Basic (and reversed card)', 'Basic (optional reversed card)', 'Basic (type in the answer)', 'Cloze'], 'Anki\'s stock note types to choose from')
  const value = await page.$eval('.add-note-form .note-type-choice', (select) => [...(select as HTMLSelectElement).options].find((option) => option.textContent === 'Basic (and reversed card)')?.value ?? '')
  await page.select('.add-note-form .note-type-choice', value)
  await page.type('.add-note-form textarea[data-field="Front"]', 'el caballo')
  await page.type('.add-note-form textarea[data-field="Back"]', 'the horse')
  await click(page, '.add-note-form button[type="submit"]')
  await page.waitForFunction(() => document.querySelectorAll('#card-list .card-item').length === 2)
  const shown = await page.$$eval('#card-list .card-item', (items) => items.map((item) => item.textContent))
  t.match(shown, [/el caballo[\s\S]*the horse/, /the horse[\s\S]*el caballo/], 'the card and its reverse')
  const { cards } = await expectOk<{ cards: Array<{ noteID?: string, ord?: string }> }>(app, 'get-flashcard', { jwtToken: token, flashcardID: (await expectOk<{ folders: Array<{ flashcards: Array<{ flashcardID: string }> }> }>(app, 'get-library', { jwtToken: token })).folders[0]?.flashcards[0]?.flashcardID })
  t.equal(new Set(cards.map((card) => card.noteID)).size, 1, 'of one note')
  t.strictSame(cards.map((card) => card.ord), ['0', '1'])
})

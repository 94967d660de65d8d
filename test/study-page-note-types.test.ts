// The note types in Settings, in Chromium: a note type made on the page, its field renamed and a
// card template added, every note of it following (the renamed field keeps its text, the new
// template makes its cards); a template dropped only once the user says so again, as the service
// counts what it would lose. With STUDY_PAGE_SCREENSHOTS=1 it writes docs/study-page-note-types.png.
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { click, docsScreenshot, emptyFlashcard, goTo, openStudyPage, seriousAxeViolations, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 180_000 }

interface NoteType { noteTypeID: string, name: string, fields: string[], templates: Array<{ name: string, front: string, back: string }> }

test('Settings, Note types: create one, rename a field and add a template; dropping a template with cards asks again', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  const flashcardID = await emptyFlashcard(study, 'Verbs', 'Spanish')
  const noteTypes = async (): Promise<NoteType[]> => (await expectOk<{ noteTypes: NoteType[] }>(app, 'get-note-types', { jwtToken: token })).noteTypes

  await goTo(page, 'settings')
  await click(page, '.note-types-section summary')
  await page.waitForSelector('.new-note-type-form input')
  await page.type('.new-note-type-form input', 'Verb')
  await click(page, '.new-note-type-form button[type="submit"]')
  await page.waitForFunction(() => document.querySelector('#notice-message')?.textContent === 'Note type Verb created.')
  const verb = (await noteTypes()).find((noteType) => noteType.name === 'Verb')
  t.match(verb, { fields: ['Front', 'Back'] }, 'made as a copy of Basic')
  await page.waitForSelector(`.note-type-form[data-note-type="${verb?.noteTypeID ?? ''}"]`)

  // a note of it, to see the change reach
  const note = await expectOk<{ noteID: string }>(app, 'add-note', { jwtToken: token, flashcardID, noteTypeID: verb?.noteTypeID, fields: { Front: 'hablar', Back: 'to speak' } }, 201)

  // rename Front to Infinitive, in the field and in the template; add a template asking the back
  await page.$eval('.note-type-fields li:first-child input', (input) => { (input as HTMLInputElement).value = 'Infinitive' })
  await page.$eval('.note-type-templates .template-front', (area) => { (area as HTMLTextAreaElement).value = '{{Infinitive}}' })
  await page.$eval('.note-type-templates .template-back', (area) => { (area as HTMLTextAreaElement).value = '{{FrontSide}}<hr id=answer>{{Back}}' })
  await click(page, '.note-type-form .add-template')
  await page.$$eval('.note-type-templates .template-front', (areas) => { (areas[1] as HTMLTextAreaElement).value = '{{Back}}' })
  await page.$$eval('.note-type-templates .template-back', (areas) => { (areas[1] as HTMLTextAreaElement).value = '{{Infinitive}}' })
  await docsScreenshot(page, 'study-page-note-types.png')
  t.same(await seriousAxeViolations(page), [], 'no serious or critical axe-core violation in the note type\'s form')
  await click(page, '.note-type-form button[type="submit"]')
  await page.waitForFunction(() => /^Note type Verb saved: 1 note made again, 1 new card\.$/.test(document.querySelector('#notice-message')?.textContent ?? ''))
  t.match((await noteTypes()).find((noteType) => noteType.name === 'Verb'), { fields: ['Infinitive', 'Back'], templates: [{ name: 'Card 1' }, { name: 'Card 2' }] }, 'saved')
  t.match(await expectOk(app, 'get-note', { jwtToken: token, noteID: note.noteID }), { fields: { Infinitive: 'hablar', Back: 'to speak' } }, 'the renamed field keeps its text')
  const cards = (await expectOk<{ cards: Array<{ frontHtml: string }> }>(app, 'get-flashcard', { jwtToken: token, flashcardID })).cards
  t.strictSame(cards.map((card) => card.frontHtml), ['hablar', 'to speak'], 'the new template made its card')

  // drop Card 1: the service says what it would lose, and the page saves only when told again
  await page.waitForFunction(() => document.querySelectorAll('.note-type-templates fieldset.template').length === 2)
  await click(page, '.note-type-templates fieldset.template:first-child .remove-template')
  await click(page, '.note-type-form button[type="submit"]')
  await page.waitForSelector('.note-type-problem .confirm-note-type-save')
  t.match(await page.$eval('.note-type-problem', (problem) => problem.textContent), /1 cards of the templates it drops \("Card 1"\) would be deleted/, 'what it would lose, before anything is lost')
  t.equal((await expectOk<{ cards: unknown[] }>(app, 'get-flashcard', { jwtToken: token, flashcardID })).cards.length, 2, 'nothing deleted yet')
  await click(page, '.note-type-problem .confirm-note-type-save')
  await page.waitForFunction(() => /1 card deleted\.$/.test(document.querySelector('#notice-message')?.textContent ?? ''))
  t.strictSame((await expectOk<{ cards: Array<{ frontHtml: string }> }>(app, 'get-flashcard', { jwtToken: token, flashcardID })).cards.map((card) => card.frontHtml), ['to speak'], 'told again: the card of the dropped template deleted')
})

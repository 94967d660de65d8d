// Accessibility of the study page, in Chromium: axe-core finds no serious or critical
// violation on the study, library, progress (goals) and Anki import screens, in the light and the dark
// scheme; the dark scheme is really dark; and every focus ring has at least 3:1 contrast
// against what is behind it (WCAG 2.2, 1.4.11 and 2.4.13).
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import { test } from 'tap'
import { expectOk } from './helpers/app.js'
import { FIXTURES } from './helpers/anki.js'
import { click, goTo, openFlashcard, openStudyPage, seriousAxeViolations, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }

interface FocusRing { element: string, ratio: number, outline: string, behind: string }

/**
 * Tabs through the first `count` controls of the page and measures each focus ring: the
 * outline's colour against the first opaque background behind the element.
 */
async function focusRings (page: Page, count: number): Promise<FocusRing[]> {
  await page.evaluate(() => { (document.activeElement as HTMLElement | null)?.blur() })
  await page.$eval('body', (body) => { body.focus() })
  const rings: FocusRing[] = []
  for (let index = 0; index < count; index += 1) {
    await page.keyboard.press('Tab')
    const ring = await page.evaluate(() => {
      const focused = document.activeElement
      if (!(focused instanceof HTMLElement) || focused === document.body) return null
      const rgb = (colour: string) => (/rgba?\(([^)]*)\)/.exec(colour)?.[1] ?? '0,0,0').split(/[ ,/]+/).filter(Boolean).map(Number)
      const luminance = (colour: string) => {
        const [r = 0, g = 0, b = 0] = rgb(colour).map((channel) => channel / 255).map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
      }
      const style = getComputedStyle(focused)
      // the ring is drawn around the element, so what is behind it is its parent's background
      let behind = 'rgb(255, 255, 255)'
      for (let node = focused.parentElement; node !== null; node = node.parentElement) {
        const background = getComputedStyle(node).backgroundColor
        if (background !== 'transparent' && rgb(background)[3] !== 0) {
          behind = background
          break
        }
      }
      const [light, dark] = [luminance(style.outlineColor), luminance(behind)].sort((a, b) => b - a)
      const name = `${focused.localName}${focused.id === '' ? '' : `#${focused.id}`} "${(focused.textContent ?? '').trim().slice(0, 20)}"`
      return {
        element: style.outlineStyle === 'none' || style.outlineWidth === '0px' ? `${name} (no outline)` : name,
        ratio: ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05),
        outline: style.outlineColor,
        behind
      }
    })
    if (ring !== null) rings.push(ring)
  }
  return rings
}

/** Sends an Anki package from the import screen on show. */
async function sendPackage (page: Page, name: string): Promise<void> {
  const input = await page.waitForSelector('input#anki-file')
  await input?.uploadFile(join(FIXTURES, name))
  await click(page, '#anki-import-start')
}

test('no serious or critical axe-core violation on study, library, progress and Anki import, light and dark; focus rings at 3:1', BROWSER_TEST, async (t) => {
  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  await expectOk(app, 'create-folder', { jwtToken: token, path: ['Languages', 'Spanish'] }, 201)
  await expectOk(app, 'create-flashcard', {
    jwtToken: token,
    folder: ['Languages', 'Spanish'],
    flashcardName: 'Greetings',
    cards: [{ front: 'hola', back: 'hello' }, { front: '<b>adiós</b>', back: 'good<i>bye</i>', format: 'html' }, { cloze: '{{c1::Madrid}} is the capital', back: 'of Spain' }]
  }, 201)
  await expectOk(app, 'create-goal', { jwtToken: token, type: 'Card', target: 10, end_date: '31/12/2099' }, 201)
  await expectOk(app, 'create-goal', { jwtToken: token, type: 'XP', target: 100, end_date: '31/12/2099' }, 201)

  await page.reload({ waitUntil: 'load' })

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }])
    const colours = await page.evaluate(() => ({ page: getComputedStyle(document.documentElement).backgroundColor, ink: getComputedStyle(document.body).color }))
    const brightness = (colour: string) => (/\d+/g.exec(colour) === null ? 0 : colour.match(/\d+/g)?.slice(0, 3).map(Number).reduce((sum, value) => sum + value, 0) ?? 0) / 3
    if (scheme === 'dark') {
      t.ok(brightness(colours.page) < 60 && brightness(colours.ink) > 180, `dark: a dark page (${colours.page}) with light text (${colours.ink})`)
    } else {
      t.ok(brightness(colours.page) > 200 && brightness(colours.ink) < 80, `light: a light page (${colours.page}) with dark text (${colours.ink})`)
    }

    await goTo(page, 'library')
    await click(page, '.tree-item-folder[data-name="Spanish"]')
    await page.waitForSelector('#library-panel .import-form')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the library with a folder chosen`)
    await openFlashcard(page, 'Greetings')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the library with a deck and its cards`)
    await page.$eval('#search-query', (input) => { (input as HTMLInputElement).value = '' })
    await page.type('#search-query', 'hola')
    await page.keyboard.press('Enter')
    await page.waitForSelector('#search-results .search-result')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the library with search results`)
    const libraryRings = await focusRings(page, 14)
    t.ok(libraryRings.length >= 10, `${scheme}: the library's controls take the focus`)
    t.same(libraryRings.filter((ring) => ring.ratio < 3), [], `${scheme}: every focus ring of the library has 3:1 against what is behind it`)

    await goTo(page, 'study')
    await page.waitForSelector('#card-front')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the study screen, a card's front`)
    await page.keyboard.press('Space')
    await page.waitForFunction(() => [...document.querySelectorAll('.rating .interval')].every((interval) => /\d/.test(interval.textContent ?? '')))
    t.same(await seriousAxeViolations(page), [], `${scheme}: the study screen, its back and the answer buttons`)
    const studyRings = await focusRings(page, 16)
    t.ok(studyRings.length >= 12, `${scheme}: the study screen's controls take the focus, the card's tools included`)
    t.same(studyRings.filter((ring) => ring.ratio < 3), [], `${scheme}: every focus ring of the study screen has 3:1`)
    await click(page, '#card-edit')
    await page.waitForSelector('#study-editor')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the card on show being edited`)
    await click(page, '#study-edit-cancel')
    await page.waitForSelector('#card-tools, .card-tools')

    await goTo(page, 'progress')
    await page.waitForSelector('#goal-list')
    await page.waitForSelector('#heatmap')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the progress screen with its goals and heatmap`)
    await click(page, '#goal-list button[aria-label^="Edit goal"]')
    await page.waitForSelector('#goal-list input[type="date"]')
    t.same(await seriousAxeViolations(page), [], `${scheme}: a goal being edited`)
    const progressRings = await focusRings(page, 12)
    t.same(progressRings.filter((ring) => ring.ratio < 3), [], `${scheme}: every focus ring of the progress screen has 3:1`)

    await goTo(page, 'library')
    await click(page, '#anki-import-link')
    await page.waitForSelector('#anki-folder option[value]:not([value=""])')
    t.same(await seriousAxeViolations(page), [], `${scheme}: the Anki import screen`)
    const importRings = await focusRings(page, 10)
    t.same(importRings.filter((ring) => ring.ratio < 3), [], `${scheme}: every focus ring of the Anki import screen has 3:1`)
    // the first status asked for is held at half way, to look at the import's progress bar
    let held = false
    study.intercept = async (request) => {
      if (held || !request.url().endsWith('/api/get-import-status')) return false
      held = true
      const { importID } = JSON.parse(request.postData() ?? '{}') as { importID: string }
      await request.respond({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ importID, state: 'running', percent: '50', cards: '10', notes: '8', reviews: '0', media: '0', warnings: [] })
      })
      return true
    }
    await sendPackage(page, join('refused', 'not-a-zip.apkg'))
    await page.waitForFunction(() => document.querySelector('#anki-progress')?.getAttribute('value') === '50')
    t.same(await seriousAxeViolations(page), [], `${scheme}: an Anki import under way, its progress bar`)
    await page.waitForSelector('#anki-import-error')
    t.same(await seriousAxeViolations(page), [], `${scheme}: an Anki import that failed`)
    study.intercept = async () => false
    if (scheme === 'light') {
      await sendPackage(page, 'collection.apkg')
      await page.waitForSelector('#anki-import-counts', { timeout: 60_000 })
      t.same(await seriousAxeViolations(page), [], `${scheme}: an Anki import done, its counts and warnings`)
    }
  }
  t.same(study.consoleErrors, [], 'no console errors')
})

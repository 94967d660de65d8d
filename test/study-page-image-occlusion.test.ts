// An Image Occlusion note (Anki's stock note type, in a package Anki itself writes with PyPI
// `anki`), studied in Chromium as Anki shows it: the image with the shape asked for masked on the
// question and outlined on the answer, and the note's other shape masked on both ("Hide all, guess
// one"), each placed over the image where Anki places it. With STUDY_PAGE_SCREENSHOTS=1 it writes
// docs/study-page-image-occlusion.png.
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { ANKI_PYTHON } from '../scripts/anki-venv.js'
import { importAnki } from './helpers/anki-import.js'
import { assertAnki, needsAnki } from './helpers/pypi-anki.js'
import { click, docsScreenshot, goTo, openStudyPage, picture, withoutChromium } from './helpers/study-page.js'
import { expectOk } from './helpers/app.js'

const OCCLUSION = '{{c1::image-occlusion:rect:left=.1:top=.2:width=.3:height=.25:oi=1}}{{c2::image-occlusion:ellipse:left=.55:top=.5:width=.3:height=.3:oi=1}}'

test('an Image Occlusion card: the image with its masks, the one asked for red on the question and outlined on the answer', {
  skip: needsAnki.skip === false ? withoutChromium : needsAnki.skip, timeout: 180_000
}, async (t) => {
  assertAnki()
  const folder = await mkdtemp(join(tmpdir(), 'image-occlusion-'))
  t.teardown(async () => { await rm(folder, { recursive: true, force: true }) })
  await writeFile(join(folder, 'skeleton.png'), picture(400, 300, 'nest'))
  const out = join(folder, 'occlusion.apkg')
  const made = spawnSync(ANKI_PYTHON, [join(import.meta.dirname, '..', 'scripts', 'anki-fixtures', 'image_occlusion.py'), out, join(folder, 'skeleton.png'), OCCLUSION], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`Anki could not write the package: ${made.stderr}`)
  t.strictSame(JSON.parse(made.stdout), [0, 1], 'Anki makes a card for each shape')

  const study = await openStudyPage(t, import.meta.filename)
  const { page, app, token } = study
  t.equal((await importAnki(app, token, await readFile(out), { withScheduling: 'false' })).state, 'done')
  const { cards } = await expectOk<{ cards: Array<{ frontHtml: string, backHtml: string }> }>(app, 'get-study-queue', { jwtToken: token })
  t.equal(cards.length, 2)
  t.match(cards[0]?.frontHtml, /<div class="io-container"><img src="[^"]+" \/><div data-shape="rect" data-left=".1" data-top=".2" data-width=".3" data-height=".25" class="io-mask io-active"><\/div><div data-shape="ellipse"[^>]*class="io-mask io-inactive"><\/div><\/div>/,
    'the question: the image, the shape asked for as an active mask, the other as an inactive one')

  await goTo(page, 'study')
  await page.waitForSelector('#card-front .io-container img')
  await page.waitForFunction(() => (document.querySelector('#card-front .io-container img') as HTMLImageElement | null)?.complete === true)
  const masks = async (side: string) => await page.$$eval(`${side} .io-mask`, (elements) => elements.map((mask) => {
    const box = mask.getBoundingClientRect()
    const image = (mask.parentElement?.querySelector('img') as HTMLImageElement).getBoundingClientRect()
    const style = getComputedStyle(mask)
    return {
      kind: [...mask.classList].filter((name) => name !== 'io-mask').join(' '),
      shape: mask.getAttribute('data-shape'),
      at: [(box.left - image.left) / image.width, (box.top - image.top) / image.height, box.width / image.width, box.height / image.height].map((value) => Math.round(value * 100) / 100),
      background: style.backgroundColor,
      round: style.borderRadius
    }
  }))
  t.strictSame(await masks('#card-front'), [
    { kind: 'io-active', shape: 'rect', at: [0.1, 0.2, 0.3, 0.25], background: 'rgb(255, 142, 142)', round: '0px' },
    { kind: 'io-inactive', shape: 'ellipse', at: [0.55, 0.5, 0.3, 0.3], background: 'rgb(255, 235, 162)', round: '50%' }
  ], 'each mask over the image where Anki puts it, the one asked for red, the other yellow')
  await docsScreenshot(page, 'study-page-image-occlusion.png', { onScreen: true })
  await click(page, '#show-answer')
  await page.waitForSelector('#card-back .io-mask.io-highlight')
  t.match(await masks('#card-back'), [{ kind: 'io-highlight', background: 'rgba(0, 0, 0, 0)' }, { kind: 'io-inactive' }], 'the answer: the shape asked for outlined, the other still masked')
  t.strictSame(await study.cspViolations(), [], 'the masks are placed within the page\'s Content-Security-Policy')
})

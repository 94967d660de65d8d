// The study page's cloze reader (web/src/cloze.ts, for the editor's preview and its next number)
// and the service's (src/domain/cloze.ts, for the cards studied) are written twice, since the page
// bundles nothing of src/: they must read every text alike.
import fc from 'fast-check'
import { test } from 'tap'
import { clozeNumbers, clozeSide, parseCloze, type ClozeMarkup } from '../../src/domain/cloze.js'
import * as page from '../../web/src/cloze.js'

const escape = (source: string) => source.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const markup: ClozeMarkup = { text: escape, open: '<span class="cloze">', close: '</span>' }

/** What each reader makes of a text: its parts, its numbers, and both sides of each card and of a number it lacks. */
function readings (text: string) {
  const service = parseCloze(text)
  const shown = page.parseCloze(text)
  const numbers = clozeNumbers(service)
  return {
    service: { parts: service, numbers, sides: [...numbers, 10_000].map((number) => [clozeSide(service, number, 'front', markup), clozeSide(service, number, 'back', markup)]) },
    page: { parts: shown, numbers: page.clozeNumbers(text), sides: [...numbers, 10_000].map((number) => [page.clozeSideHtml(shown, number, 'front', escape), page.clozeSideHtml(shown, number, 'back', escape)]) }
  }
}

const CORPUS = [
  '{{c1,2::Paris}} is the capital of {{c3::France}}',
  '{{c1,2::Paris::city}} and {{c2::Lyon}}',
  '{{c1,2::a {{c2,3::b::h}} c}}',
  '{{c3,1,3::x}} {{c9999,1::y}}',
  '{{c1,x::a}} {{c1,,2::b}} {{c,1::c}} {{c1,::d}} {{c1,0::e}} {{c1,10000::f}} {{c1,02::g}}',
  '{{c1::a {{c1,x::b}} c}}',
  '{{c1,2::unclosed {{c3,4::closed}}',
  '{{c1::Paris}} is the capital of {{c2::France::country}}; {{c1::Lyon}} is not',
  '{{c0::zero}} {{c10000::big}} }} {{c1::std::vector}} <b>&</b>'
]

test('the page reads a text as the service does: {{c1,2::…}} and the rest', async (t) => {
  for (const text of CORPUS) {
    const { service, page: shown } = readings(text)
    t.strictSame(shown, service, text)
  }
  t.same(page.clozeNumbers('{{c1,2::Paris}} is the capital of {{c3::France}}'), [1, 2, 3])
  t.equal(page.nextClozeNumber('{{c1,4::Paris}} is the capital of {{c2::France}}'), 5, 'the next number is past every number of a list')
  const pieces = fc.constantFrom('{{c', '{{c1::', '{{c2::', '{{c1,2::', '{{c3,1,3::', '{{c1,', '{{c1,x::', '{{c1,,2::', ',2::', ',',
    '::', '}}', '}', '{', 'c1', ':', 'a', ' ', '<b>', '&')
  fc.assert(fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
    const { service, page: shown } = readings(parts.join(''))
    return JSON.stringify(shown) === JSON.stringify(service)
  }), { numRuns: 1000 })
  t.pass('1,000 texts of cloze fragments read alike')
})

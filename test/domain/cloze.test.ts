import fc from 'fast-check'
import { test } from 'tap'
import { clozeNumbers, clozeSide, clozeSource, parseCloze, withoutDeletion, type ClozeMarkup } from '../../src/domain/cloze.js'
import { clozeSides } from '../../src/domain/card-html.js'

/** Marks that show where the service's markup goes, on text kept as it is. */
const marks: ClozeMarkup = { text: (source) => source, open: '<', close: '>' }

function sides (text: string, number: number): [string, string] {
  const parts = parseCloze(text)
  return [clozeSide(parts, number, 'front', marks), clozeSide(parts, number, 'back', marks)]
}

test('one card per number, each number once, in increasing order', async (t) => {
  t.same(clozeNumbers(parseCloze('{{c1::Paris}} is the capital of {{c2::France}}')), [1, 2])
  t.same(clozeNumbers(parseCloze('{{c2::b}} {{c1::a}} {{c2::again}}')), [1, 2], 'the same number twice is one card')
  t.same(clozeNumbers(parseCloze('{{c10::ten}} {{c9::nine}}')), [9, 10], 'numbers, not their digits')
  t.same(clozeNumbers(parseCloze('{{c1::outer {{c3::inner}}}}')), [1, 3], 'a nested deletion is a card too')
  t.same(clozeNumbers(parseCloze('no deletion here')), [])
  t.same(clozeNumbers(parseCloze('{{c0::zero}} {{c10000::big}} {{c::none}} {{C1::upper}} {c1::single}')), [], 'not a deletion: text')
  t.same(clozeNumbers(parseCloze('{{c1::never closed')), [], 'an unclosed deletion is text')
})

test('the question hides its own deletions as [...] or [hint] and fills in the others; the answer marks its own', async (t) => {
  t.same(sides('{{c1::Paris}} is the capital of {{c2::France}}', 1), ['<[...]> is the capital of France', '<Paris> is the capital of France'])
  t.same(sides('{{c1::Paris}} is the capital of {{c2::France}}', 2), ['Paris is the capital of <[...]>', 'Paris is the capital of <France>'])
  t.same(sides('{{c1::Paris::city}} is in {{c2::France::country}}', 1), ['<[city]> is in France', '<Paris> is in France'], 'a hint')
  t.same(sides('{{c1::Paris::city}} is in {{c2::France::country}}', 2), ['Paris is in <[country]>', 'Paris is in <France>'])
  t.same(sides('{{c1::un}}, {{c2::dos}}, {{c1::tres}}', 1), ['<[...]>, dos, <[...]>', '<un>, dos, <tres>'], 'the same number twice: both hidden')
  t.same(sides('{{c1::un}}, {{c2::dos}}, {{c1::tres}}', 2), ['un, <[...]>, tres', 'un, <dos>, tres'])
  t.same(sides('{{c1::a {{c2::b}} c}}', 1), ['<[...]>', '<a b c>'], 'the outer deletion hides what it holds')
  t.same(sides('{{c1::a {{c2::b}} c}}', 2), ['a <[...]> c', 'a <b> c'], 'the inner one is asked within the outer text')
  t.same(sides('{{c1::std::vector}}', 1), ['<[vector]>', '<std>'], 'as in Anki, the first :: starts the hint')
  t.same(sides('a }} b {{c1::x}}', 1), ['a }} b <[...]>', 'a }} b <x>'], 'a closing outside a deletion is text')
})

test('a deletion may name several cards: {{c1,2::…}} is asked on card 1 and on card 2', async (t) => {
  t.strictSame(parseCloze('{{c1,2::Paris}} is the capital of {{c3::France}}'), [
    { numbers: [1, 2], answer: ['Paris'], hint: null }, ' is the capital of ', { numbers: [3], answer: ['France'], hint: null }
  ])
  t.strictSame(parseCloze('{{c1,2::Paris::city}}'), [{ numbers: [1, 2], answer: ['Paris'], hint: ['city'] }], 'with a hint')
  t.strictSame(parseCloze('{{c3,1,3::x}}'), [{ numbers: [3, 1, 3], answer: ['x'], hint: null }], 'the numbers as written, so that the text reads back')
  t.strictSame(parseCloze('{{c1,2::a {{c2,3::b::h}} c}}'), [
    { numbers: [1, 2], answer: ['a ', { numbers: [2, 3], answer: ['b'], hint: ['h'] }, ' c'], hint: null }
  ], 'nested')
  t.same(clozeNumbers(parseCloze('{{c1,2::Paris}} is the capital of {{c3::France}}')), [1, 2, 3])
  t.same(clozeNumbers(parseCloze('{{c5,2,5::a}} {{c2::b}} {{c1::c {{c9999,7::d}}}}')), [1, 2, 5, 7, 9999], 'each number once, in increasing order')
  for (const text of ['{{c1,x::a}}', '{{c1,,2::a}}', '{{c,1::a}}', '{{c1,::a}}', '{{c1,0::a}}', '{{c1,10000::a}}', '{{c1,02::a}}', '{{c1 ,2::a}}', '{{c1;2::a}}']) {
    t.strictSame(parseCloze(text), [text], `a list with a member that is no number from 1 to 9999 is text: ${text}`)
  }
  t.strictSame(parseCloze('{{c1::a {{c1,x::b}} c}}'), [{ numbers: [1], answer: ['a {{c1,x'], hint: ['b'] }, ' c}}'],
    'a bad list inside a deletion is its text, whose :: starts the hint, as in Anki')
})

test('the cards of a deletion of several numbers: each asks for it, the others show its answer', async (t) => {
  const text = '{{c1,2::Paris}} is the capital of {{c3::France}}'
  t.same(sides(text, 1), ['<[...]> is the capital of France', '<Paris> is the capital of France'])
  t.same(sides(text, 2), ['<[...]> is the capital of France', '<Paris> is the capital of France'])
  t.same(sides(text, 3), ['Paris is the capital of <[...]>', 'Paris is the capital of <France>'])
  t.same(sides('{{c1,2::Paris::city}} and {{c2::Lyon}}', 2), ['<[city]> and <[...]>', '<Paris> and <Lyon>'], 'a hint; both deletions of card 2')
  t.same(sides('{{c1,2::a {{c2,3::b}} c}}', 3), ['a <[...]> c', 'a <b> c'], 'nested: card 3 asks for the inner one only')
  t.same(sides('{{c1,2::a {{c2,3::b}} c}}', 2), ['<[...]>', '<a <b> c>'], 'card 2 asks for the outer one, which hides the inner')
  t.same(clozeSides(text, '', 'text', 2), {
    front: '<span class="cloze">[...]</span> is the capital of France', back: '<span class="cloze">Paris</span> is the capital of France', media: []
  })
})

test('a number taken out of a deletion of several numbers leaves it for the others', async (t) => {
  const text = '{{c1,2::Paris::city}} is the capital of {{c3::France}}, {{c2,2::twice}} {{c3,1::in {{c2,4::nest}}}}'
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 2)), '{{c1::Paris::city}} is the capital of {{c3::France}}, twice {{c3,1::in {{c4::nest}}}}')
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 1)), '{{c2::Paris::city}} is the capital of {{c3::France}}, {{c2,2::twice}} {{c3::in {{c2,4::nest}}}}')
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 3)), '{{c1,2::Paris::city}} is the capital of France, {{c2,2::twice}} {{c1::in {{c2,4::nest}}}}')
})

test('reading keeps the text as written, whatever it holds', async (t) => {
  const texts = ['{{c1::a}}', '{{c1::a::b::c}}', '{{c1::{{c2::x}}}}}}', '{{c1::unclosed {{c2::closed}}', '}}{{c3::', '::{{c1::::}}', '{{c12::a}}{{c0::b}}',
    '{{c2,1,2::a::h}}', '{{c1,2::unclosed {{c3,4::closed}}', '{{c1,x::a}}{{c1,::b}}']
  for (const text of texts) t.equal(clozeSource(parseCloze(text)), text, JSON.stringify(text))
  const pieces = fc.constantFrom('{{c', '{{c1::', '{{c2::', '{{c10::', '{{c1,2::', '{{c3,1,3::', '{{c1,', '{{c1,x::', '{{c1,,2::', ',2::', ',',
    '::', '}}', '}', '{', 'c1', ':', 'a', ' ', '<b>', '</b>')
  fc.assert(fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
    const text = parts.join('')
    return clozeSource(parseCloze(text)) === text
  }), { numRuns: 2000 })
  t.pass('2,000 texts of cloze fragments read back as written')
})

test('a deletion taken out leaves its answer as text, and the other deletions as they were', async (t) => {
  const text = '{{c1::Paris::city}} is the capital of {{c2::France}}, and {{c1::Lyon}} {{c3::is {{c1::not}}}}'
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 1)), 'Paris is the capital of {{c2::France}}, and Lyon {{c3::is not}}')
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 2)), '{{c1::Paris::city}} is the capital of France, and {{c1::Lyon}} {{c3::is {{c1::not}}}}')
  t.equal(clozeSource(withoutDeletion(parseCloze(text), 7)), text, 'a number not there changes nothing')
})

test('cloze sides as HTML: plain text escaped, html sanitized, the deletion in span.cloze, the back extra after a line break', async (t) => {
  t.same(clozeSides('{{c1::<b>Paris</b>}} & {{c2::France}}', 'from <i>Wikipedia</i>', 'text', 1), {
    front: '<span class="cloze">[...]</span> &amp; France',
    back: '<span class="cloze">&lt;b&gt;Paris&lt;/b&gt;</span> &amp; France<br>from &lt;i&gt;Wikipedia&lt;/i&gt;',
    media: []
  }, 'plain text: the markup is text')
  t.same(clozeSides('{{c1::<b>Paris</b>}} is in {{c2::France::<i>country</i>}}', 'from <i>Wikipedia</i>', 'html', 2), {
    front: '<b>Paris</b> is in <span class="cloze">[<i>country</i>]</span>',
    back: '<b>Paris</b> is in <span class="cloze">France</span><br>from <i>Wikipedia</i>',
    media: []
  }, 'markup inside an answer and a hint is kept')
  t.same(clozeSides('{{c1::<b>Pa}}ris</b> {{c2::x<script>alert(1)</script>}}', '', 'html', 1).front,
    '<span class="cloze">[...]</span>ris x', 'a deletion cutting an element leaves balanced, sanitized HTML')
  t.equal(clozeSides('<span class="cloze">fake</span> {{c1::x}}', '', 'html', 1).front, '<span>fake</span> <span class="cloze">[...]</span>',
    'a class="cloze" written in the text is dropped: only the service marks a deletion')
  t.same(clozeSides('{{c1::<img src="media:dog">}} barks <audio src="media:bark"></audio>', '', 'html', 1).front,
    '<span class="cloze">[...]</span> barks <audio src="media:bark" controls></audio>', 'the question hides the media of its deletion')
  t.same(clozeSides('{{c1::<img src="media:dog">}} barks <audio src="media:bark"></audio>', '', 'html', 1).back,
    '<span class="cloze"><img src="media:dog" /></span> barks <audio src="media:bark" controls></audio>')
  t.same(clozeSides('{{c1::<img src="media:dog">}} barks <audio src="media:bark"></audio>', '', 'html', 1).media, ['bark', 'dog'],
    'the card refers to the media of both its sides')
})

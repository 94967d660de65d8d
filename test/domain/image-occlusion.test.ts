// Image occlusion shapes as Anki writes and parses them (rslib's image_occlusion), the sides of each
// card of a note, and what the sanitizer keeps of a mask: its shape and place as numbers, nothing else.
import { test } from 'tap'
import { imageOcclusions } from '../../src/domain/anki/cloze.js'
import { sanitizeCardHtml } from '../../src/domain/card-html.js'
import { occlusionSides } from '../../src/domain/image-occlusion.js'

test('shapes: their numbers, kind and properties, a value\'s escaped colon kept; text outside clozes ignored', (t) => {
  t.strictSame(imageOcclusions('before {{c1,2::image-occlusion:rect:left=.1:top=.2:width=.3:height=.4:oi=1}} {{c3::image-occlusion:text:left=.5:top=.5:text=a\\:b\\\\c:scale=1}} {{c4::plain}}'), [
    { ordinals: [1, 2], shape: 'rect', properties: { left: '.1', top: '.2', width: '.3', height: '.4', oi: '1' } },
    { ordinals: [3], shape: 'text', properties: { left: '.5', top: '.5', text: 'a:b\\c', scale: '1' } }
  ])
  t.strictSame(imageOcclusions('no shapes here'), [])
  t.end()
})

test('each card masks its own shapes on the question and outlines them on the answer; the others masked only when the note hides them all', (t) => {
  const occlusion = '{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2:oi=1}}{{c2::image-occlusion:ellipse:left=.5:top=.5:width=.2:height=.2}}'
  const parts = { image: '<img src="media:123">', header: '', backExtra: '' }
  const first = occlusionSides(occlusion, 1, parts)
  t.match(first.front, /io-mask io-active" data-shape="rect"/)
  t.notMatch(first.front, /ellipse/, 'card 1: the other shape is not hidden (its note does not hide them all)')
  t.match(first.back, /io-mask io-highlight" data-shape="rect"/)
  const second = occlusionSides(occlusion, 2, parts)
  t.match(second.front, /io-mask io-inactive" data-shape="rect".*io-mask io-active" data-shape="ellipse"/, 'card 2: the first shape hidden too (oi=1)')
  t.end()
})

test('the sanitizer keeps a mask\'s shape and numbers on an imported card, and nothing else', (t) => {
  const hostile = '<div class="io-mask io-active" data-shape="rect" data-left="1);background:url(x" data-top=".2" data-width="calc(1)" data-height=".3" data-points="a" data-onclick="x" style="position:fixed" onclick="alert(1)"></div>'
  t.equal(sanitizeCardHtml(hostile, { classes: true }), '<div data-shape="rect" data-top=".2" data-height=".3" class="io-mask io-active"></div>')
  t.equal(sanitizeCardHtml('<div class="other" data-shape="rect" data-left=".1"></div>', { classes: true }), '<div class="other"></div>', 'only on a mask')
  t.equal(sanitizeCardHtml('<div class="io-mask" data-shape="rect" data-left=".1"></div>'), '<div></div>', 'only on a card an Anki import made')
  t.end()
})

import { test } from 'tap'
import { basicSides, escapeText, resolveMedia, sanitizeCardHtml } from '../../src/domain/card-html.js'

test('plain text is shown as written: markup escaped, line breaks <br>', async (t) => {
  t.equal(escapeText('<b>hola</b>'), '&lt;b&gt;hola&lt;/b&gt;')
  t.equal(escapeText('Tom & "Jerry" it\'s'), 'Tom &amp; &quot;Jerry&quot; it&#39;s')
  t.equal(escapeText('one\ntwo\r\nthree\rfour'), 'one<br>two<br>three<br>four')
  t.equal(escapeText('plain words'), 'plain words')
})

test('the allowlist keeps formatting, ruby readings, lists, tables and code', async (t) => {
  const kept = [
    '<b>bold</b> <strong>strong</strong> <i>italic</i> <em>em</em> <u>under</u> H<sub>2</sub>O x<sup>2</sup>',
    '<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp></ruby>字',
    '<ul><li>one</li></ul><ol><li>two</li></ol>',
    '<table><caption>c</caption><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="3">d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
    '<p>para</p><div>block</div><pre><code>let x = 1</code></pre><span>span</span>'
  ]
  for (const html of kept) t.equal(sanitizeCardHtml(html), html, html)
  t.equal(sanitizeCardHtml('a<br>b'), 'a<br />b')
})

test('what the allowlist does not name goes; the text of a harmless element stays', async (t) => {
  t.equal(sanitizeCardHtml('<h1 id="x" class="y" style="position:fixed;top:0">Title</h1>'), 'Title')
  t.equal(sanitizeCardHtml('<p style="display:none" class="hidden" title="t" dir="rtl">shown</p>'), '<p>shown</p>')
  t.equal(sanitizeCardHtml('<td colspan="1000">x</td><th rowspan="a">y</th>'), '<td>x</td><th>y</th>', 'spans of 1 to 99 only')
  t.equal(sanitizeCardHtml('before<script>alert(1)</script><style>b{}</style><svg><text>svg</text></svg><math><mi>m</mi></math>after'), 'beforeafter')
  t.equal(sanitizeCardHtml('<iframe src="https://example.com"></iframe><object data="x"></object><embed src="x"><form><input value="v"></form>'), '')
})

test('links: only absolute http(s) addresses, opened apart from the page', async (t) => {
  t.equal(sanitizeCardHtml('<a href="https://example.com/a?b=1&c=2" title="t" onclick="x()">ok</a>'),
    '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow" target="_blank">ok</a>')
  t.equal(sanitizeCardHtml('<a href="HTTP://Example.com">up</a>'), '<a href="http://example.com/" rel="noopener noreferrer nofollow" target="_blank">up</a>')
  for (const href of ['javascript:alert(1)', 'jav\tascript:alert(1)', ' vbscript:x', 'data:text/html,x', '//evil.example', '/api/delete-account', 'mailto:a@b.c', 'ftp://x', '#top']) {
    t.equal(sanitizeCardHtml(`<a href="${href}">text</a>`), 'text', `${JSON.stringify(href)}: the text stays, not the link`)
  }
})

test('images and audio only of the user\'s media, as media:<mediaID>', async (t) => {
  t.equal(sanitizeCardHtml('<img src="media:dog-1" alt="a dog" width="1" height="1" onerror="x()">'), '<img src="media:dog-1" alt="a dog" />')
  t.equal(sanitizeCardHtml('<audio src="media:bark" autoplay loop>fallback <b>text</b></audio>'), '<audio src="media:bark" controls></audio>',
    'played only when asked; nothing inside it kept')
  for (const src of ['x', 'https://example.com/a.png', 'data:image/png;base64,AAAA', 'javascript:alert(1)', 'media:', 'media:a b', 'media:../x', 'MEDIA:x']) {
    t.equal(sanitizeCardHtml(`<img src="${src}"><audio src="${src}"></audio>`), '', `${JSON.stringify(src)} is dropped`)
  }
})

test('media references become the resolver\'s addresses when read; one it does not know is left out', async (t) => {
  const { front, media } = basicSides('<p><img src="media:known" alt="k"> and <img src="media:unknown"> <audio src="media:sound"></audio></p>', '', 'html')
  t.same(media, ['known', 'unknown', 'sound'], 'what the card refers to, each once')
  const addresses: Record<string, string> = { known: '/media/known?expires=9&sig="a&b"', sound: '/media/sound' }
  t.equal(resolveMedia(front, (id) => addresses[id] ?? null),
    '<p><img src="/media/known?expires=9&amp;sig=&quot;a&amp;b&quot;" alt="k" /> and  <audio src="/media/sound" controls></audio></p>')
  t.equal(resolveMedia('<p>media:known as text</p>', () => 'x'), '<p>media:known as text</p>', 'text that merely reads media: is text')
  t.same(basicSides('<img src="media:x">', 'plain <img src="media:x">', 'text').media, [], 'plain text refers to no media')
})

test('a card an Anki import made keeps its class names, for its note type\'s CSS: plain names only, at most 16, never "cloze"', async (t) => {
  const classes = { classes: true }
  t.equal(sanitizeCardHtml('<div class="front  big">a</div><b class="x">b</b><td class="cell" rowspan="2">c</td>', classes),
    '<div class="front big">a</div><b class="x">b</b><td rowspan="2" class="cell">c</td>', 'on any element kept, after the attributes it keeps')
  t.equal(sanitizeCardHtml('<img src="media:dog-1" class="pic" alt="dog" onerror="x()"><a href="https://example.com" class="link">l</a>', classes),
    '<img src="media:dog-1" alt="dog" class="pic" /><a href="https://example.com/" rel="noopener noreferrer nofollow" target="_blank" class="link">l</a>',
    'after the media source, which is read first')
  t.equal(sanitizeCardHtml('<span class="cloze">not a deletion</span><span class="cloze hint">h</span>', classes), '<span>not a deletion</span><span class="hint">h</span>',
    '"cloze" written in the source is dropped: only the service marks a deletion')
  t.equal(sanitizeCardHtml('<p class="a;b x&quot;y 1bad ok-name">p</p>', classes), '<p class="ok-name">p</p>', 'a name that is not a plain identifier is dropped')
  t.equal(sanitizeCardHtml(`<p class="${Array.from({ length: 20 }, (_, n) => `c${n}`).join(' ')}">p</p>`, classes),
    `<p class="${Array.from({ length: 16 }, (_, n) => `c${n}`).join(' ')}">p</p>`, 'at most 16')
  t.equal(sanitizeCardHtml('<div class="front">a</div><img src="media:dog-1" class="pic">'), '<div>a</div><img src="media:dog-1" />', 'any other card keeps none')
  t.equal(sanitizeCardHtml('<img class="pic">', classes), '', 'an image without a media source goes, class or not')
})

test('text without markup or character references comes out of the sanitizer as it went in, as its parser gives it back', async (t) => {
  const { default: fc } = await import('fast-check')
  // the sanitizer skips its parser for such text; in an element (which the parser reads) the same text comes back unchanged too
  fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }).filter((text) => !/[<>&\0]/.test(text)), (text) =>
    sanitizeCardHtml(text) === text && sanitizeCardHtml(text, { classes: true }) === text && sanitizeCardHtml(`<b>${text}</b>`) === `<b>${text}</b>`
  ), { numRuns: 3000 })
  t.equal(sanitizeCardHtml('a & b'), 'a &amp; b', 'an ampersand goes to the parser, which escapes it')
  t.equal(sanitizeCardHtml('1 < 2'), '1 &lt; 2')
  t.equal(sanitizeCardHtml('plain'), 'plain')
})

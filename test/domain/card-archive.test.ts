import { test } from 'tap'
import {
  archiveFileOf, archiveRoot, cardsForArchive, entryNameProblem, mediaFileName, mediaIdOf, rewriteMediaSources
} from '../../src/domain/card-archive.js'
import { parseCsv, toCsv } from '../../src/domain/card-formats.js'

const ID = '123456789012345678901234567890123456789'
const HASH = 'a'.repeat(64)

/** Every media source to its file, as an export writes it. */
const toFile = (source: string): string | null => mediaIdOf(source) === ID ? `media/${HASH}.png` : null

test('the src of each image and sound is rewritten, in the quotes it was written in, and nothing else', async (t) => {
  const cases: Array<[string, string, string]> = [
    [`<img src="media:${ID}" alt="x">`, `<img src="media/${HASH}.png" alt="x">`, 'double quotes'],
    [`<img src='media:${ID}'>`, `<img src='media/${HASH}.png'>`, 'single quotes'],
    [`<IMG SRC=media:${ID}>`, `<IMG SRC=media/${HASH}.png>`, 'no quotes, upper case'],
    [`<img alt="a > b, src=media:${ID}" src = " media:${ID} ">`, `<img alt="a > b, src=media:${ID}" src = "media/${HASH}.png">`, 'a > and a src= inside another attribute; spaces around the value'],
    [`<audio src="media:${ID}"></audio>`, `<audio src="media/${HASH}.png"></audio>`, 'a sound'],
    [`<img src="&#109;edia&colon;${ID}">`, `<img src="media/${HASH}.png">`, 'character references, read as a browser reads them'],
    [`<img data-src="media:${ID}" src="media:${ID}">`, `<img data-src="media:${ID}" src="media/${HASH}.png">`, 'data-src is not src'],
    [`<img src="media:${ID}" src="media:9">`, `<img src="media/${HASH}.png" src="media:9">`, 'the first src counts'],
    [`<!-- <img src="media:${ID}"> --><img src="media:${ID}">`, `<!-- <img src="media:${ID}"> --><img src="media/${HASH}.png">`, 'an element in a comment is none'],
    [`<imgx src="media:${ID}"> media:${ID} <a href="media:${ID}">`, `<imgx src="media:${ID}"> media:${ID} <a href="media:${ID}">`, 'other elements and text are left as written'],
    [`<img src="media:${ID}`, `<img src="media:${ID}`, 'an element never closed'],
    ['<img src="https://example.com/x.png">', '<img src="https://example.com/x.png">', 'a source that is no media']
  ]
  for (const [html, rewritten, what] of cases) t.equal(rewriteMediaSources(html, toFile), rewritten, what)
  t.equal(rewriteMediaSources('<img src=a>', () => 'a b"c&d'), '<img src="a b&quot;c&amp;d">', 'a value that cannot go unquoted is quoted and escaped')
})

test('an export writes html sides with file paths, and reading them back with media ids gives the cards as they were', async (t) => {
  const cards = [
    { front: `<img src="media:${ID}">`, back: 'plain', format: 'html' as const },
    { cloze: `{{c1::<audio src='media:${ID}'></audio>}}`, back: `<img src=media:${ID}>`, format: 'html' as const },
    { front: `text media:${ID} <img src="media:${ID}">`, back: '' }
  ]
  const archived = cardsForArchive(cards, (mediaID) => mediaID === ID ? `${HASH}.png` : undefined)
  t.same(archived, [
    { front: `<img src="media/${HASH}.png">`, back: 'plain', format: 'html' },
    { cloze: `{{c1::<audio src='media/${HASH}.png'></audio>}}`, back: `<img src=media/${HASH}.png>`, format: 'html' },
    cards[2]
  ], 'plain text cards show no media and are left as written')
  const lines: number[] = []
  const read = parseCsv(toCsv(archived), {
    html: (source, { line }) => {
      lines.push(line)
      return rewriteMediaSources(source, (value) => archiveFileOf(value) === `${HASH}.png` ? `media:${ID}` : null)
    }
  })
  t.same(read, cards, 'the same cards')
  t.same(lines, [2, 2, 3, 3], 'each html side with the line it starts on')
})

test('the rewritten text is what the card rules check: a reference that grows past the limit is refused', async (t) => {
  const source = `"<img src=""media/a.png"">${'x'.repeat(9_970)}",b,html,basic\r\n`
  t.equal(parseCsv(`front,back,format,type\r\n${source}`).length, 1, 'within the limit as written')
  t.throws(() => parseCsv(`front,back,format,type\r\n${source}`, { html: (html) => rewriteMediaSources(html, () => `media:${ID}`) }),
    /line 2: the front is 10,?0\d\d characters long; at most 10000/)
})

test('names: a media file by its content; entry names that unpack elsewhere refused; the archive\'s top found', async (t) => {
  t.equal(mediaFileName(HASH, 'image/jpeg'), `${HASH}.jpg`)
  t.equal(mediaFileName(HASH, 'audio/mp4'), `${HASH}.m4a`)
  t.equal(mediaFileName(HASH, 'image/apng'), `${HASH}.png`)
  for (const name of ['cards.csv', 'media/', 'media/a b.png', 'Deck/media/é.png', 'media/..png']) t.equal(entryNameProblem(name), null, `${name} is fine`)
  for (const name of ['', '../x', 'media/../../x', '/etc/passwd', 'C:x', 'c:/x', 'media\\x.png', 'a/./b', 'a//b', 'media/\u0000x', './cards.csv']) {
    t.type(entryNameProblem(name), 'string', `${JSON.stringify(name)} is refused`)
  }
  t.equal(archiveRoot(['media/x.png', 'cards.csv']), '')
  t.equal(archiveRoot(['Deck/', 'Deck/cards.csv', 'Deck/media/x.png', '__MACOSX/Deck/._cards.csv']), 'Deck/', 'one folder packed again')
  t.equal(archiveRoot(['Deck/cards.csv', 'Other/cards.csv']), null, 'two folders: which one?')
  t.equal(archiveRoot(['Deck/cards.csv', 'notes.txt']), null)
  t.equal(archiveRoot(['a/b/cards.csv']), null, 'deeper is not looked for')
  t.equal(archiveRoot(['media/x.png']), null)
})

// The text a card is found by, and the patterns that pick the search pages:
// a page is never left out when one of its cards holds every word of a query.
import fc from 'fast-check'
import { test } from 'tap'
import { foldForSearch, holdsEvery, pagePatterns, queryWords } from '../../src/domain/search-text.js'

const SEPARATOR = '\u0001'

/** Whether the database would pick a page of these texts: every pattern matches (as JavaScript reads them). */
function picked (texts: readonly string[], words: readonly string[]): boolean {
  const page = texts.join(SEPARATOR)
  return pagePatterns(words, SEPARATOR).every((pattern) => new RegExp(pattern, 'u').test(page))
}

test('a page holding a card with every word is always picked, whatever the words\' order and overlaps', async (t) => {
  // a small alphabet, so that words overlap, hold one another and repeat
  const text = fc.stringMatching(/^[abc ]{0,12}$/)
  const word = fc.stringMatching(/^[abc]{1,3}$/)
  fc.assert(fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), fc.array(word, { minLength: 1, maxLength: 4 }), (texts, query) => {
    const words = [...new Set(query)]
    if (texts.some((card) => holdsEvery(card, words))) return picked(texts, words)
    return true
  }), { numRuns: 3000 })
  t.pass('never left out')
})

test('two or three words that cannot overlap pick only pages where one card holds them all', async (t) => {
  t.notOk(picked(['el niño canta', 'the song'], ['nino', 'song']), 'the words in two cards of the page: not picked')
  t.ok(picked(['el niño canta', 'the nino song'], ['song', 'nino']), 'in one card, in either order')
  t.ok(picked(['abcde'], ['abc', 'cde']), 'words that overlap are matched each on its own: a card holding them in shared characters is found')
  t.ok(picked(['x.y (z)'], ['.y', '(z)']), 'signs matched as written')
  t.equal(pagePatterns(['abc', 'cde'], SEPARATOR).length, 2, 'no pattern of the words together when they may overlap')
  t.equal(pagePatterns(['cat', 'dog', 'sun', 'fox'], SEPARATOR).length, 5, 'the first three together, every word on its own')
})

test('folding: case, accents, compatibility forms and the letters no decomposition takes apart', async (t) => {
  t.equal(foldForSearch('Árbol CANCIÓN'), 'arbol cancion')
  t.equal(foldForSearch('Straße Łódź København ﬁne ＡＢＣ'), 'strasse lodz kobenhavn fine abc')
  t.equal(foldForSearch('İstanbul'), 'istanbul')
  t.equal(foldForSearch('がくせい'), 'がくせい', 'kana keep their voicing marks: が is not か')
  t.strictSame(queryWords('  Niño  nino '), ['nino'], 'each word once, spaces aside')
  t.strictSame(queryWords('   '), [])
})

import { test } from 'tap'
import { TOP_LEVEL, treeFromNodes, treeJson as writeTree, type CardLeaf, type ParentLinkedNode as LibraryNode, type TreeOptions } from '../../src/domain/library-tree.js'

// The cases are written as the records the library was once stored as: built into a tree first
function treeJson (nodes: readonly LibraryNode[], cards: readonly CardLeaf[], options?: TreeOptions): string {
  return writeTree(treeFromNodes(nodes).tree, cards, options)
}

// Ids look like the real ones: long strings of digits
function id (n: number): string {
  return '9' + String(n).padStart(38, '0')
}

function folder (n: number, name: string, parent: number | null): LibraryNode {
  return { _id: id(n), kind: 'folder', parentID: parent === null ? TOP_LEVEL : id(parent), name }
}

function flashcard (n: number, name: string, folderNumber: number): LibraryNode {
  return { _id: id(n), kind: 'flashcard', parentID: id(folderNumber), name }
}

function card (n: number, flashcardNumber: number, status = '0.0'): CardLeaf {
  return { id: id(n), flashcardID: id(flashcardNumber), last_review: '01/03/2026', review_status: status }
}

// The library's nodes come in one list, folders first here
function treeOf (folders: LibraryNode[], flashcards: LibraryNode[], cards: CardLeaf[], options?: TreeOptions): string {
  return treeJson([...folders, ...flashcards], cards, options)
}

interface JsonObject { [key: string]: string | JsonObject }

// What a client receives: the tree as its JSON.parse reads it
function json (text: string): JsonObject {
  return JSON.parse(text) as JsonObject
}

function dig (tree: JsonObject, ...path: string[]): JsonObject {
  let current: string | JsonObject = tree
  for (const key of path) {
    const next: string | JsonObject | undefined = typeof current === 'object' && Object.hasOwn(current, key) ? current[key] : undefined
    if (next === undefined || typeof next !== 'object') throw new Error(`no object at ${path.join(' > ')}`)
    current = next
  }
  return current as JsonObject
}

test('a flashcard one folder down', async t => {
  const tree = treeOf(
    [folder(1, 'Languages', null)],
    [flashcard(10, 'Spanish verbs', 1)],
    [card(100, 10, '0.0'), card(101, 10, '3.0')]
  )
  t.same(json(tree), {
    Languages: {
      'Spanish verbs': {
        cards: {
          [id(100)]: { last_review: '01/03/2026', review_status: '0.0' },
          [id(101)]: { last_review: '01/03/2026', review_status: '3.0' }
        },
        flashcardID: id(10),
        flashcardName: 'Spanish verbs'
      }
    }
  })
})

test('a flashcard three folders down', async t => {
  const tree = treeOf(
    [folder(1, 'Science', null), folder(2, 'Biology', 1), folder(3, 'Cells', 2)],
    [flashcard(10, 'Organelles', 3)],
    [card(100, 10, '0.2')]
  )
  t.same(json(tree), {
    Science: {
      Biology: {
        Cells: {
          Organelles: {
            cards: { [id(100)]: { last_review: '01/03/2026', review_status: '0.2' } },
            flashcardID: id(10),
            flashcardName: 'Organelles'
          }
        }
      }
    }
  })
})

test('a flashcard has exactly cards, flashcardID and flashcardName', async t => {
  const tree = json(treeOf([folder(1, 'F', null)], [flashcard(10, 'Deck', 1)], [card(100, 10)]))
  const deck = dig(tree, 'F', 'Deck')
  t.same(Object.keys(deck).sort(), ['cards', 'flashcardID', 'flashcardName'])
  t.same(Object.keys(dig(deck, 'cards', id(100))).sort(), ['last_review', 'review_status'])
  t.type(deck.flashcardID, 'string')
  t.type(deck.flashcardName, 'string')
})

const library = {
  folders: [
    folder(1, 'Languages', null),
    folder(2, 'Spanish', 1),
    folder(3, 'French', 1),
    folder(4, 'Empty', null),
    folder(5, 'Deep', 4)
  ],
  flashcards: [
    flashcard(10, 'Verbs', 2),
    flashcard(11, 'Nouns', 2),
    flashcard(12, 'Colours', 3)
  ]
}

test('today\'s tree holds only the branches that lead to a card', async t => {
  const tree = treeOf(library.folders, library.flashcards, [card(100, 10)])
  t.same(json(tree), {
    Languages: {
      Spanish: {
        Verbs: {
          cards: { [id(100)]: { last_review: '01/03/2026', review_status: '0.0' } },
          flashcardID: id(10),
          flashcardName: 'Verbs'
        }
      }
    }
  }, 'French, Nouns, Empty and Deep are left out')
})

test('folders and flashcards may come in any order, as the database returns them', async t => {
  const nodes = [...library.folders, ...library.flashcards]
  const cards = [card(100, 10), card(101, 12)]
  const expected = treeJson(nodes, cards)
  t.ok(expected.includes('"Colours"') && expected.includes('"Verbs"'))
  for (const order of [[...nodes].reverse(), [nodes[5], nodes[0], nodes[6], nodes[2], nodes[7], nodes[1], nodes[3], nodes[4]]]) {
    t.equal(treeJson(order as LibraryNode[], cards), expected)
    t.equal(treeJson(order as LibraryNode[], cards, { includeEmpty: true }), treeJson(nodes, cards, { includeEmpty: true }))
  }
})

test('a flashcard given twice appears once', async t => {
  const deck = flashcard(10, 'Deck', 1)
  const tree = treeJson([folder(1, 'F', null), deck, { ...deck }], [card(100, 10)])
  t.equal(tree.split('"flashcardID"').length - 1, 1)
  t.same(Object.keys(dig(json(tree), 'F')), ['Deck'])
})

test('nothing due gives an empty object', async t => {
  t.equal(treeOf(library.folders, library.flashcards, []), '{}')
  t.equal(treeOf([], [], []), '{}')
})

test('the whole library keeps empty folders and flashcards', async t => {
  const tree = treeOf(library.folders, library.flashcards, [card(100, 10)], { includeEmpty: true })
  t.same(json(tree), {
    Empty: { Deep: {} },
    Languages: {
      French: {
        Colours: { cards: {}, flashcardID: id(12), flashcardName: 'Colours' }
      },
      Spanish: {
        Nouns: { cards: {}, flashcardID: id(11), flashcardName: 'Nouns' },
        Verbs: {
          cards: { [id(100)]: { last_review: '01/03/2026', review_status: '0.0' } },
          flashcardID: id(10),
          flashcardName: 'Verbs'
        }
      }
    }
  })
})

test('names that mean something to JavaScript come back as plain keys', async t => {
  const hostile = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a.b', '$x', '$where', 'x/y', 'cards', 'flashcardID', 'prototype']
  const folders = hostile.map((name, i) => folder(i + 1, name, null))
  const flashcards = hostile.map((name, i) => flashcard(100 + i, name, i + 1))
  const cards = hostile.map((_, i) => card(1000 + i, 100 + i))
  const tree = treeOf(folders, flashcards, cards)

  const roundTrip = JSON.parse(tree)
  t.same(Object.keys(roundTrip).sort(), [...hostile].sort(), 'every name is an own key of the top level')
  for (const [i, name] of hostile.entries()) {
    t.ok(Object.hasOwn(roundTrip, name), `${name} is an own key`)
    const folderObject = roundTrip[name]
    t.same(Object.keys(folderObject), [name], `${name} holds its flashcard`)
    t.equal(folderObject[name].flashcardName, name)
    t.equal(folderObject[name].flashcardID, id(100 + i))
  }
  t.equal(Object.getPrototypeOf(roundTrip), Object.prototype, 'JSON.parse made __proto__ an own key, not the prototype')
  t.equal(({} as Record<string, unknown>).flashcardID, undefined, 'Object.prototype untouched')
  t.equal(typeof ({}).toString, 'function')
  t.ok(tree.includes('"__proto__":{"__proto__":{"cards"'), '__proto__ serialised as a member')
})

test('records that lost their place go under a top-level folder "Recovered", none left out', async t => {
  const folders = [
    folder(1, 'Home', null),
    folder(2, 'Orphan', 999), // parent does not exist
    folder(3, 'Loop A', 4),
    folder(4, 'Loop B', 3), // 3 -> 4 -> 3
    folder(5, 'Self', 5),
    folder(6, 'Under loop', 3),
    folder(7, 'Recovered', null) // the name is taken: the new folder gets another
  ]
  const flashcards = [
    flashcard(10, 'Kept', 1),
    flashcard(11, 'In orphan', 2),
    flashcard(12, 'In loop', 4),
    flashcard(13, 'In self', 5),
    flashcard(14, 'Under loop', 6),
    flashcard(15, 'No folder', 998),
    flashcard(16, 'Top-level flashcard', 0),
    { ...flashcard(17, 'Top-level flashcard', 0), parentID: TOP_LEVEL }
  ]
  const cards = [10, 11, 12, 13, 14, 15, 17].map(n => card(n * 10, n)).concat(card(5000, 777))
  const holding = (n: number, name: string) =>
    ({ cards: { [id(n * 10)]: { last_review: '01/03/2026', review_status: '0.0' } }, flashcardID: id(n), flashcardName: name })

  const built = treeFromNodes([...folders, ...flashcards], () => id(500))
  t.equal(built.recovered, 12, 'every record that lost its place is counted')
  t.same(json(writeTree(built.tree, cards)), {
    Home: { Kept: holding(10, 'Kept') },
    'Recovered (2)': {
      Orphan: { 'In orphan': holding(11, 'In orphan') },
      'Loop A': { 'Loop B': { 'In loop': holding(12, 'In loop') }, 'Under loop': { 'Under loop': holding(14, 'Under loop') } },
      Self: { 'In self': holding(13, 'In self') },
      'No folder': holding(15, 'No folder'),
      'Top-level flashcard (2)': holding(17, 'Top-level flashcard (2)')
    }
  }, 'a loop is cut at one of its folders; a name met twice gets a suffix; a card of no flashcard stays out')
  t.equal(built.tree.folders.find((top) => top.name === 'Recovered (2)')?.id, id(500), 'the new folder has an id of its own')
  t.equal(json(writeTree(built.tree, [], { includeEmpty: true }))['Top-level flashcard'], undefined, 'no flashcard at the top level')

  const whole = treeFromNodes([folder(1, 'Home', null), flashcard(10, 'Kept', 1)], () => id(500))
  t.equal(whole.recovered, 0)
  t.same(whole.tree.folders.map((top) => top.name), ['Home'], 'no such folder when nothing lost its place')
})

test('members are ordered by name, the same on every machine', async t => {
  const names = ['b', 'B', 'é', 'a', 'Z', 'e']
  const folders = [folder(1, 'Top', null)]
  const flashcards = names.map((name, i) => flashcard(10 + i, name, 1))
  const cards = names.map((_, i) => card(100 + i, 10 + i))
  const tree = json(treeOf(folders, flashcards, cards))
  t.same(Object.keys(dig(tree, 'Top')), ['B', 'Z', 'a', 'b', 'e', 'é'], 'UTF-16 code unit order')

  // JavaScript puts array-index keys first, in numeric order, and JSON follows it
  const years = treeOf([folder(1, 'Years', null)], ['2024', 'notes', '10'].map((name, i) => flashcard(10 + i, name, 1)),
    [card(100, 10), card(101, 11), card(102, 12)])
  t.same(Object.keys(dig(json(years), 'Years')), ['10', '2024', 'notes'])
  // the text itself is in that order, so a client reading it as a stream sees the same
  t.ok(years.indexOf('"10"') < years.indexOf('"2024"') && years.indexOf('"2024"') < years.indexOf('"notes"'), 'written in that order')
  const big = treeOf([folder(1, 'N', null)], ['4294967295', '4294967294', '01', '3'].map((name, i) => flashcard(10 + i, name, 1)),
    [card(100, 10), card(101, 11), card(102, 12), card(103, 13)])
  t.same(Object.keys(dig(json(big), 'N')), ['3', '4294967294', '01', '4294967295'], 'only canonical indices below 2^32 - 1 come first')
  t.ok(big.indexOf('"3"') < big.indexOf('"4294967294"') && big.indexOf('"4294967294"') < big.indexOf('"01"') && big.indexOf('"01"') < big.indexOf('"4294967295"'))
})

test('names with quotes, backslashes and other JSON specials come back as written', async t => {
  const names = ['say "hi"', 'back\\slash', 'tab\there', 'line\u2028sep', '</script>', 'emoji 🃏', 'ünïcödé']
  const tree = treeOf([folder(1, 'Top', null)], names.map((name, i) => flashcard(10 + i, name, 1)), names.map((_, i) => card(100 + i, 10 + i)))
  const parsed = dig(json(tree), 'Top')
  t.same(Object.keys(parsed).sort(), [...names].sort())
  for (const name of names) t.equal((parsed[name] as JsonObject).flashcardName, name)
})

test('cards keep the order they were given in', async t => {
  const cards = [card(300, 10), card(100, 10), card(200, 10)]
  const tree = json(treeOf([folder(1, 'F', null)], [flashcard(10, 'Deck', 1)], cards))
  t.same(Object.keys(dig(tree, 'F', 'Deck', 'cards')), [id(300), id(100), id(200)])
})

test('a card given twice appears once, in its first place, with its last values', async t => {
  // few cards (compared pair by pair) and many (compared through a Map) alike
  for (const count of [3, 40]) {
    const cards = Array.from({ length: count }, (_, n) => card(100 + n, 10))
    cards.push(card(101, 10, '7.0'))
    const text = treeOf([folder(1, 'F', null)], [flashcard(10, 'Deck', 1)], cards)
    const held = dig(json(text), 'F', 'Deck', 'cards')
    t.same(Object.keys(held), cards.slice(0, count).map((leaf) => leaf.id), `${count} cards: each id once, in first-seen order`)
    t.same(held[id(101)], { last_review: '01/03/2026', review_status: '7.0' }, `${count} cards: the later values win`)
    t.equal(text.split(`"${id(101)}"`).length - 1, 1, `${count} cards: the text itself names the card once`)
  }
})

test('a folder and a flashcard sharing a name in the records: neither is hidden, the later one gets a suffix', async t => {
  const tree = json(treeOf(
    [folder(1, 'Top', null), folder(2, 'Same', 1)],
    [flashcard(10, 'Same', 1), flashcard(11, 'Inner', 2)],
    [card(100, 10), card(101, 11)]
  ))
  t.same(Object.keys(dig(tree, 'Top')), ['Same', 'Same (2)'])
  t.same(Object.keys(dig(tree, 'Top', 'Same')), ['Inner'], 'the folder keeps the name')
  t.equal(dig(tree, 'Top', 'Same (2)').flashcardID, id(10), 'the flashcard is there under another')
})

test('the text is what JSON.stringify writes, however strange the names', async t => {
  // a lone surrogate written raw would survive JSON.parse here but not the UTF-8 of the wire
  const names = [
    'plain', 'say "hi"', 'back\\slash', 'tab\there', 'nul\u0000', 'del\u007f', 'é', 'emoji 🃏', '中文',
    'lone \ud800 high', 'lone \udc00 low', 'line\u2028sep', 'end"'
  ].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  const folders = names.map((name, i) => folder(i + 1, name, null))
  const flashcards = names.map((name, i) => flashcard(100 + i, name, i + 1))
  const cards = names.map((_, i) => card(1000 + i, 100 + i, `${i}.0`))
  // the same tree as objects, built in the order it is written (no name here is an array index)
  const expected: Record<string, unknown> = {}
  for (const [i, name] of names.entries()) {
    expected[name] = {
      [name]: {
        cards: { [id(1000 + i)]: { last_review: '01/03/2026', review_status: `${i}.0` } },
        flashcardID: id(100 + i),
        flashcardName: name
      }
    }
  }
  const text = treeOf(folders, flashcards, cards)
  t.equal(text, JSON.stringify(expected))
  t.equal(Buffer.from(text, 'utf8').toString('utf8'), text, 'nothing lost on the way through UTF-8')
})

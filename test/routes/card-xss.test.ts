// Every vector of test/fixtures/xss-vectors.json (OWASP's XSS Filter Evasion
// Cheat Sheet and the like: scripts, event attributes, javascript:, vbscript:
// and data: addresses in every attribute, SVG and MathML, styles, encodings,
// broken tags, parser differentials, cloze syntax around them) goes in through
// every way a card is written, and the HTML of every read is parsed as a browser
// parses it (parse5) and held to the allowlist of docs/api.md, element by
// element and attribute by attribute.
import { readFile } from 'node:fs/promises'
import { test } from 'tap'
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5'
import { buildTestApp, everyCardOf, libraryPages, post, registerUser } from '../helpers/app.js'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

const vectors = JSON.parse(await readFile(new URL('../fixtures/xss-vectors.json', import.meta.url), 'utf8')) as string[]

const MEDIA_ADDRESS = 'https://media.test/'
/** The user's media, as the resolver knows them; any other reference must be left out. */
const KNOWN_MEDIA = new Set(['abc', '123'])

/** The allowlist as docs/api.md states it: each element, with the attributes it may carry and what their values may be. */
const ALLOWED: Record<string, Record<string, (value: string) => boolean>> = {
  ...Object.fromEntries(['b', 'strong', 'i', 'em', 'u', 'sub', 'sup', 'code', 'pre', 'br', 'p', 'div', 'ul', 'ol', 'li', 'ruby', 'rt', 'rp',
    'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr'].map((tag) => [tag, {}])),
  span: { class: (value) => value === 'cloze' },
  td: { colspan: (value) => /^[1-9][0-9]?$/.test(value), rowspan: (value) => /^[1-9][0-9]?$/.test(value) },
  th: { colspan: (value) => /^[1-9][0-9]?$/.test(value), rowspan: (value) => /^[1-9][0-9]?$/.test(value) },
  a: {
    href: (value) => {
      try {
        const url = new URL(value)
        return (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\//.test(value)
      } catch {
        return false
      }
    },
    rel: (value) => value === 'noopener noreferrer nofollow',
    target: (value) => value === '_blank'
  },
  img: { src: (value) => value.startsWith(MEDIA_ADDRESS), alt: () => true },
  audio: { src: (value) => value.startsWith(MEDIA_ADDRESS), controls: (value) => value === '' }
}

function elementsOf (node: Node, found: Element[] = []): Element[] {
  if ('tagName' in node) found.push(node)
  if ('childNodes' in node) for (const child of node.childNodes) elementsOf(child, found)
  // a template's content is a fragment of its own
  if ('content' in node) elementsOf(node.content, found)
  return found
}

/** What in this HTML is outside the allowlist, in words; none for HTML that passes. */
function problemsOf (html: string, allowed: Record<string, Record<string, (value: string) => boolean>> = ALLOWED): string[] {
  const problems: string[] = []
  // markup characters of text are escaped, so these can only be tags
  if (/<\s*script/i.test(html)) problems.push('a <script')
  if (/<[^>]*\sstyle\s*=/i.test(html)) problems.push('a style attribute')
  for (const element of elementsOf(parseFragment(html))) {
    if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`<${element.tagName}> in ${element.namespaceURI}`)
    const attributes = allowed[element.tagName]
    if (attributes === undefined) {
      problems.push(`<${element.tagName}>`)
      continue
    }
    for (const { name, value } of element.attrs) {
      if (/^on/i.test(name)) problems.push(`<${element.tagName} ${name}>`)
      if (/^\s*(javascript|vbscript|data|livescript):/i.test(value)) problems.push(`<${element.tagName} ${name}="${value}">`)
      const check = attributes[name]
      if (check === undefined || !check(value)) problems.push(`<${element.tagName} ${name}="${value}">`)
    }
  }
  return problems
}

/** Plain text shows no element but line breaks. */
const PLAIN: Record<string, Record<string, (value: string) => boolean>> = { br: {} }

interface ReadCard { cardID: string, format: string, frontHtml: string, backHtml: string, clozeNumber?: string }

test('no vector of the XSS corpus survives any way in, on any read', async (t) => {
  t.ok(vectors.length >= 100, `${vectors.length} vectors`)
  const app = await buildTestApp(t, import.meta.filename, {
    mediaUrl: (_userID, mediaID) => KNOWN_MEDIA.has(mediaID) ? `${MEDIA_ADDRESS}${mediaID}?signature=s` : null
  })
  const { jwtToken } = await registerUser(app)
  const call = async (operation: string, body: object) => {
    const response = await post(app, operation, { jwtToken, ...body })
    if (response.statusCode >= 300) throw new Error(`${operation}: ${response.statusCode} ${response.body}`)
    return response.json()
  }
  await call('create-folder', { path: ['XSS'] })
  const flashcard = async (name: string, cards: object[]): Promise<string> =>
    (await call('create-flashcard', { folder: ['XSS'], flashcardName: name, cards })).flashcardID

  let checked = 0
  const failures: string[] = []
  const check = (where: string, card: ReadCard) => {
    const allowed = card.format === 'text' && card.clozeNumber === undefined ? PLAIN : ALLOWED
    for (const [side, html] of [['front', card.frontHtml], ['back', card.backHtml]] as const) {
      checked += 1
      for (const problem of problemsOf(html, allowed)) failures.push(`${where}, ${side} of ${card.cardID}: ${problem} in ${JSON.stringify(html)}`)
    }
  }
  const read = async (where: string, flashcardID: string) => {
    for (const card of await everyCardOf<ReadCard>(app, jwtToken, flashcardID)) check(`${where}, get-flashcard`, card)
  }

  // create-flashcard and add-cards, as html and as plain text; cloze notes in both
  const created = await flashcard('Created', vectors.map((vector) => ({ front: vector, back: vector, format: 'html' })))
  await call('add-cards', { flashcardID: created, cards: vectors.map((vector) => ({ front: vector, back: vector, format: 'html' })) })
  await call('add-cards', { flashcardID: created, cards: vectors.map((vector) => ({ front: vector, back: vector })) })
  await read('create-flashcard and add-cards', created)
  const cloze = (vector: string) => ({ cloze: `{{c1::${vector}}} and ${vector} and {{c2::answer::${vector}}}`, back: vector })
  const clozeHtml = await flashcard('Cloze html', vectors.slice(0, 90).map((vector) => ({ ...cloze(vector), format: 'html' })))
  await call('add-cards', { flashcardID: clozeHtml, cards: vectors.slice(90).map((vector) => ({ ...cloze(vector), format: 'html' })) })
  await read('cloze html', clozeHtml)
  const clozeText = await flashcard('Cloze text', vectors.slice(0, 90).map(cloze))
  await call('add-cards', { flashcardID: clozeText, cards: vectors.slice(90).map(cloze) })
  await read('cloze text', clozeText)

  // import-cards: a CSV of formatted cards and cloze notes
  const cell = (text: string) => `"${text.replaceAll('"', '""')}"`
  const csv = ['front,back,format,type', ...vectors.flatMap((vector) => [
    `${cell(vector)},${cell(vector)},html,basic`,
    `${cell(`{{c1::${vector}}} ${vector}`)},${cell(vector)},html,cloze`
  ])].join('\r\n')
  const imported = (await call('import-cards', { folder: ['XSS'], flashcardName: 'Imported', format: 'csv', text: csv })).flashcardID as string
  await read('import-cards', imported)

  // edit-card: a card, and a card of a cloze note, given each vector in turn; the answer is a read too
  const edited = await flashcard('Edited', [{ front: 'f', back: 'b', format: 'html' }, { cloze: '{{c1::a}}', format: 'html' }])
  const [basicID, clozeID] = ((await call('get-flashcard', { flashcardID: edited })).cards as ReadCard[]).map((card) => card.cardID)
  for (const vector of vectors) {
    check('edit-card answer', await call('edit-card', { flashcardID: edited, cardID: basicID, front: vector, back: vector }))
    const note = await call('edit-card', { flashcardID: edited, cardID: clozeID, cloze: `{{c1::keep}} ${vector} {{c2::${vector}}}`, back: vector })
    for (const card of note.cards as ReadCard[]) check('edit-card answer (cloze)', card)
    await read('edit-card', edited)
  }

  // get-all-cards with the cards' content: every card of the library, page after page
  for (const { library } of await libraryPages(app, jwtToken)) {
    const flashcards = library.XSS as Record<string, { cards: Record<string, Omit<ReadCard, 'cardID'>> }>
    for (const { cards } of Object.values(flashcards)) {
      for (const [cardID, card] of Object.entries(cards)) check('get-all-cards', { cardID, ...card })
    }
  }

  t.ok(checked > 5000, `${checked} sides checked`)
  t.same(failures.slice(0, 20), [], `${failures.length} sides outside the allowlist`)
})

test('the checker itself finds what it is for', async (t) => {
  t.same(problemsOf('<b>bold</b> <span class="cloze">x</span> <a href="https://example.com/" rel="noopener noreferrer nofollow" target="_blank">l</a>'), [])
  t.same(problemsOf(`<img src="${MEDIA_ADDRESS}abc?signature=s" alt="a"><audio src="${MEDIA_ADDRESS}abc" controls></audio>`), [])
  t.ok(problemsOf('<img src=x onerror=alert(1)>').length > 0)
  t.ok(problemsOf('<a href="jav&#x09;ascript:alert(1)">x</a>').length > 0)
  t.ok(problemsOf('<svg><a>x</a></svg>').length > 0)
  t.ok(problemsOf('<math><mi>x</mi></math>').length > 0)
  t.ok(problemsOf('<p style="display:none">x</p>').length > 0)
  t.ok(problemsOf('<span class="evil">x</span>').length > 0)
  t.ok(problemsOf('<iframe src="https://example.com"></iframe>').length > 0)
  t.ok(problemsOf('<template><img src=x onerror=alert(1)></template>').length > 0)
  t.ok(problemsOf('&lt;b&gt;', PLAIN).length === 0 && problemsOf('<b>x</b>', PLAIN).length > 0)
})

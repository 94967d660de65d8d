import { test } from 'tap'
import { storedState } from '../helpers/stored.js'
import { buildTestApp, post, registerUser } from '../helpers/app.js'

/** A name as an ASCII-only label: a raw U+2028 would break the TAP output's lines. */
function shown (name: string): string {
  return JSON.stringify(name).replace(/[^\x20-\x7e]/gu, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`)
}

test('names are compared and stored in one spelling (NFC) and must read as what they are', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const jwtToken = user.jwtToken

  await t.test('café typed as é and as e + combining accent is one name', async (t) => {
    const composed = 'caf\u00e9'
    const decomposed = 'cafe\u0301'
    t.equal((await post(app, 'create-folder', { jwtToken, path: [composed] })).statusCode, 201)
    const again = await post(app, 'create-folder', { jwtToken, path: [decomposed] })
    t.equal(again.statusCode, 409, 'the other spelling is the same folder')
    const flashcard = await post(app, 'create-flashcard', { jwtToken, folder: [decomposed], flashcardName: 'Cre\u0300me', cards: [{ front: 'e\u0301', back: 'b' }] })
    t.equal(flashcard.statusCode, 201, 'found by either spelling')
    const tree = (await post(app, 'get-all-cards', { jwtToken })).json()
    t.same(Object.keys(tree), [composed], 'stored composed')
    t.same(Object.keys(tree[composed]), ['Cr\u00e8me'])
    const card = await post(app, 'get-flashcard', { jwtToken, flashcardID: flashcard.json().flashcardID })
    t.equal(card.json().cards[0].front, '\u00e9', 'card text too')
  })

  await t.test('bidirectional controls and names without a visible character are refused, and nothing is stored', async (t) => {
    const before = await storedState(app)
    for (const [name, problem] of [
      ['evil\u202Egnp.exe', /bidirectional control/],
      ['a\u2066b', /bidirectional control/],
      ['\u200B\u200C\u200D', /no visible character/],
      ['\u2060\uFEFF', /no visible character/],
      ['\u3164', /no visible character/],
      [' \u0301', /no visible character/]
    ] as const) {
      const folder = await post(app, 'create-folder', { jwtToken, path: [name] })
      t.equal(folder.statusCode, 400, JSON.stringify(name))
      t.match(folder.json().error, problem)
      const flashcard = await post(app, 'create-flashcard', { jwtToken, folder: ['café'], flashcardName: name, cards: [{ front: 'q', back: 'a' }] })
      t.equal(flashcard.statusCode, 400, `flashcard ${JSON.stringify(name)}`)
    }
    t.equal(await storedState(app), before)
    const quoted = (await post(app, 'create-folder', { jwtToken, path: ['evil\u202Egnp.exe'] })).json().error as string
    t.ok(quoted.includes('"evil\\u202egnp.exe"') && !quoted.includes('\u202E'), `the message shows the control escaped, not acting: ${quoted}`)
  })

  await t.test('invisible characters, blank symbols and line separators are refused in folder and flashcard names, and nothing is stored', async (t) => {
    const before = await storedState(app)
    for (const [name, problem] of [
      ['x\u200By', /invisible character U\+200B/],
      ['a\u200B', /invisible character U\+200B/],
      ['a\u2060b', /invisible character U\+2060/],
      ['\uFEFFa', /invisible character U\+FEFF/],
      ['so\u00ADft', /invisible character U\+00AD/],
      ['a\uFE0F\uFE0F', /invisible character U\+FE0F/],
      ['a\u200D', /invisible character U\+200D/],
      ['\u2800', /no visible character/],
      ['\u2800\u2800\u2800', /no visible character/],
      ['\u115F\u1160\uFFA0', /no visible character/],
      ['\u180E', /no visible character/],
      ['\u2000\u2005\u200A', /no visible character/],
      ['\u{1D159}', /no visible character/],
      ['\u{1D173}\u{1D17A}', /no visible character/],
      ['\u2028', /line or paragraph separator/],
      ['line\u2028break', /line or paragraph separator/],
      ['para\u2029graph', /line or paragraph separator/]
    ] as const) {
      const folder = await post(app, 'create-folder', { jwtToken, path: [name] })
      t.equal(folder.statusCode, 400, shown(name))
      t.match(folder.json().error, problem, shown(name))
      const nested = await post(app, 'create-folder', { jwtToken, path: ['café', name] })
      t.equal(nested.statusCode, 400, `nested ${shown(name)}`)
      const flashcard = await post(app, 'create-flashcard', { jwtToken, folder: ['café'], flashcardName: name, cards: [{ front: 'q', back: 'a' }] })
      t.equal(flashcard.statusCode, 400, `flashcard ${shown(name)}`)
      t.match(flashcard.json().error, problem, `flashcard ${shown(name)}`)
    }
    t.equal(await storedState(app), before)
  })

  await t.test('joiners and variation selectors where writing needs them are kept as written', async (t) => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'
    const persian = '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645'
    const heart = '\u2764\uFE0F'
    const created = await post(app, 'create-folder', { jwtToken, path: [family, heart] })
    t.equal(created.statusCode, 201, created.body)
    const flashcard = await post(app, 'create-flashcard', { jwtToken, folder: [family, heart], flashcardName: persian, cards: [] })
    t.equal(flashcard.statusCode, 201, flashcard.body)
    const tree = (await post(app, 'get-all-cards', { jwtToken })).json()
    t.same(Object.keys(tree[family][heart]), [persian], 'stored and found as written')
  })

  await t.test('displayName and email refuse control characters', async (t) => {
    const before = await storedState(app)
    t.equal((await post(app, 'register', { email: 'ctl\u0007@example.com', password: 'long enough password' })).statusCode, 400)
    t.equal((await post(app, 'register', { email: 'ok@exa\u0085mple.com', password: 'long enough password' })).statusCode, 400)
    t.equal((await post(app, 'register', { email: 'named@example.com', password: 'long enough password', displayName: 'Ada\u0000' })).statusCode, 400)
    t.equal((await post(app, 'update-settings', { jwtToken, displayName: 'bell\u0007' })).statusCode, 400)
    t.equal(await storedState(app), before)
  })
})

import { test } from 'tap'
import { storedState } from '../helpers/stored.js'
import { buildTestApp, post, registerUser } from '../helpers/app.js'

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
    t.equal((await post(app, 'create-folder', { jwtToken, path: ['x\u200By'] })).statusCode, 201, 'a zero-width character beside visible ones is allowed')
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

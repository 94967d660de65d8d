import { test } from 'tap'
import { buildTestApp, expectOk, registerUser } from '../helpers/app.js'
import { fixture, importAnki } from '../helpers/anki-import.js'

test('a current package imports: decks as folders, cards, reviews, media', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const status = await importAnki(app, user.jwtToken, fixture('collection.apkg'))
  t.equal(status.state, 'done', JSON.stringify(status))
  const library = await expectOk(app, 'get-all-cards', { jwtToken: user.jwtToken })
  t.comment(JSON.stringify(library).slice(0, 3000))
})

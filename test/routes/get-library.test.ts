import { test } from 'tap'
import { buildTestApp, expectOk, makeDeck, makeFolder, post, registerUser } from '../helpers/app.js'

interface FolderOutline {
  folderID: string
  name: string
  folders: FolderOutline[]
  flashcards: Array<{ flashcardID: string, flashcardName: string, description: string, cards: string }>
}

test('get-library gives the folders and flashcards with their ids and card counts', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const user = await registerUser(app)
  const other = await registerUser(app)
  const call = async (operation: string, body: Record<string, unknown>, who = user) => await post(app, operation, { jwtToken: who.jwtToken, ...body })

  t.strictSame((await call('get-library', {})).json(), { due: '0', new: '0', folders: [] }, 'an empty library')

  const spanish = await makeFolder(app, user, ['Languages', 'Spanish'])
  const empty = await makeFolder(app, user, ['__proto__'])
  const { flashcardID: verbs } = await makeDeck(app, user, {
    folder: ['Languages', 'Spanish'], name: 'Verbs', description: 'irregular', cards: [{ front: 'ser', back: 'to be' }, { front: 'ir', back: 'to go' }]
  })
  const { flashcardID: none } = await makeDeck(app, user, { folder: ['Languages'], name: 'Nothing yet', cards: 0 })
  await makeFolder(app, other, ['Theirs'])

  const response = await call('get-library', {})
  t.equal(response.statusCode, 200)
  const { folders } = response.json() as { folders: FolderOutline[] }
  const languages = folders.find((folder) => folder.name === 'Languages')
  t.strictSame(folders.map((folder) => folder.name), ['Languages', '__proto__'], "only the user's own folders, in the order made")
  t.strictSame(folders[1], { folderID: empty, name: '__proto__', due: '0', new: '0', folders: [], flashcards: [] })
  t.strictSame(languages?.flashcards, [{ flashcardID: none, flashcardName: 'Nothing yet', description: '', cards: '0', due: '0', new: '0' }])
  t.strictSame(languages?.folders, [{
    folderID: spanish,
    name: 'Spanish',
    due: '0',
    new: '2',
    folders: [],
    flashcards: [{ flashcardID: verbs, flashcardName: 'Verbs', description: 'irregular', cards: '2', due: '0', new: '2' }]
  }], 'nested folders with their flashcards and how many cards each holds')

  // the ids it gives are the ones the edits take
  t.equal((await call('rename-folder', { folderID: languages?.folderID, name: 'Idiomas' })).statusCode, 200)
  const { cards } = await expectOk<{ cards: Array<{ cardID: string }> }>(app, 'get-flashcard', { jwtToken: user.jwtToken, flashcardID: verbs })
  await expectOk(app, 'delete-card', { jwtToken: user.jwtToken, flashcardID: verbs, cardID: cards[0]?.cardID })
  const after = (await call('get-library', {})).json() as { folders: FolderOutline[] }
  t.equal(after.folders[0]?.name, 'Idiomas')
  t.equal(after.folders[0]?.folders[0]?.flashcards[0]?.cards, '1', 'the count follows a deleted card')

  t.equal((await post(app, 'get-library', { jwtToken: 'not.a.token' })).statusCode, 401)
})

import { Readable } from 'node:stream'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { ARCHIVE_LIMITS } from '../../src/domain/card-archive.js'
import { MAX_MEDIA_BYTES } from '../../src/domain/media.js'
import type { AppConfig } from '../../src/app.js'
import { buildTestApp, expectOk, makeFolder, post, registerUser, type Checks, type Refused, type TestUser } from '../helpers/app.js'
import { formBody, samples, storedMedia, uploaded } from '../helpers/media.js'
import { storedState } from '../helpers/stored.js'
import { importZip, zipOf, type ZipEntry } from '../helpers/zip.js'

const ROBIN = samples.png(3000)
/** cards.csv of one html card showing media/robin.png, and a plain one */
const CARDS = Buffer.from('front,back,format,type\r\n"<img src=""media/robin.png"">",a robin,html,basic\r\nplain,card,text,basic\r\n')

interface Setup { app: FastifyInstance, user: TestUser }

async function setup (t: Parameters<typeof buildTestApp>[0], overrides: Partial<AppConfig> = {}): Promise<Setup> {
  const app = await buildTestApp(t, import.meta.filename, overrides)
  const user = await registerUser(app)
  await makeFolder(app, user, ['Inbox'])
  return { app, user }
}

/**
 * Imports the archive into Inbox, which must be refused with `status` and
 * `code`, and leave the database as it was: no card, no flashcard, no media
 * record, no file, nothing listed for the sweep, no quota used. The refusal.
 */
async function refusedImport (t: Checks, { app, user }: Setup, archive: Buffer, status: number, code: string, what: string): Promise<Refused> {
  const before = await storedState(app)
  const response = await importZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: 'Imported', archive })
  const answer = response.json<Refused>()
  t.equal(response.statusCode, status, `${what}: ${status}`)
  t.equal(answer.code, code, `${what}: ${code}`)
  t.equal(await storedState(app), before, `${what}: nothing is stored`)
  return answer
}

test('a file that is not a zip, or a damaged one, is 400 not_a_zip', async (t) => {
  const setup_ = await setup(t)
  const whole = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }])
  await refusedImport(t, setup_, Buffer.from('front,back\r\nhola,hello\r\n'), 400, 'not_a_zip', 'a CSV sent as it is')
  await refusedImport(t, setup_, ROBIN, 400, 'not_a_zip', 'an image')
  await refusedImport(t, setup_, whole.subarray(0, whole.length - 30), 400, 'not_a_zip', 'a zip cut short')
  const corrupted = Buffer.from(whole)
  // the deflated cards.csv, past its local header and name, made noise
  corrupted.fill(0xff, 30 + 'cards.csv'.length, 30 + 'cards.csv'.length + 8)
  await refusedImport(t, setup_, corrupted, 400, 'not_a_zip', 'a zip whose data is damaged')
})

test('an archive that would expand past its limits is 400 zip_bomb, before anything is stored', async (t) => {
  const setup_ = await setup(t)
  const withCards = (...entries: ZipEntry[]) => zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }, ...entries])
  const ratio = await refusedImport(t, setup_, withCards({ name: 'notes.txt', data: Buffer.alloc(8 * 1024 * 1024) }), 400, 'zip_bomb', 'a file of 8 MiB of zeros, deflated a thousandfold')
  t.match(ratio.error, /notes\.txt would expand to more than 200 times its stored size/)
  const total = await refusedImport(t, setup_, withCards(
    // each declares 150 times its stored size, which alone passes
    { name: 'a.bin', data: Buffer.alloc(10), declaredSize: 1500 * 1024 * 1024, declaredStoredSize: 10 * 1024 * 1024 },
    { name: 'b.bin', data: Buffer.alloc(10), declaredSize: 1500 * 1024 * 1024, declaredStoredSize: 10 * 1024 * 1024 }
  ), 400, 'zip_bomb', 'files that declare 3,000 MiB in all')
  t.match(total.error, /in all/)
  const many = Array.from({ length: ARCHIVE_LIMITS.maxEntries }, (_, index) => ({ name: `media/${index}.png`, data: Buffer.alloc(0), method: 'store' as const }))
  const files = await refusedImport(t, setup_, withCards(...many), 400, 'zip_bomb', `${ARCHIVE_LIMITS.maxEntries + 2} files`)
  t.match(files.error, /more than 10,000/)
  const cardsFile = zipOf([{ name: 'cards.csv', data: Buffer.from('front,back\r\n' + 'a,b\r\n'.repeat(100)), declaredSize: 20 }])
  await refusedImport(t, setup_, cardsFile, 400, 'zip_bomb', 'a cards.csv longer than its declared size')
})

test('a file named by a path, or two files of one name, is 400 unsafe_file_name', async (t) => {
  const setup_ = await setup(t)
  for (const name of ['../robin.png', 'media/../../robin.png', '/etc/cron.d/robin', 'C:robin.png', 'C:/Windows/robin.png', 'media\\robin.png', 'media/ro\u0007bin.png']) {
    const archive = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }, { name, data: ROBIN, method: 'store' }])
    const refusal = await refusedImport(t, setup_, archive, 400, 'unsafe_file_name', JSON.stringify(name))
    t.match(refusal.error, JSON.stringify(name), 'the message names it')
  }
  const twice = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }, { name: 'cards.csv', data: Buffer.from('front,back\r\nx,y\r\n') }])
  await refusedImport(t, setup_, twice, 400, 'unsafe_file_name', 'cards.csv twice')
})

test('an archive without cards.csv is 400 missing_cards_file; a card showing a file the archive lacks is 400 missing_media', async (t) => {
  const setup_ = await setup(t)
  await refusedImport(t, setup_, zipOf([{ name: 'media/robin.png', data: ROBIN, method: 'store' }]), 400, 'missing_cards_file', 'media alone')
  await refusedImport(t, setup_, zipOf([{ name: 'deck/cards/cards.csv', data: CARDS }]), 400, 'missing_cards_file', 'cards.csv two folders down')
  await refusedImport(t, setup_, zipOf([{ name: 'A/cards.csv', data: CARDS }, { name: 'B/cards.csv', data: CARDS }]), 400, 'missing_cards_file', 'two folders of cards')
  await refusedImport(t, setup_, zipOf([{ name: 'Cards.CSV', data: CARDS }]), 400, 'missing_cards_file', 'another spelling')

  const missing = await refusedImport(t, setup_, zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'robin.png', data: ROBIN, method: 'store' }]), 400, 'missing_media', 'the image beside cards.csv, not in media/')
  t.match(missing.error, /cards\.csv line 2 shows "media\/robin\.png"/, 'the message names the line and the file')
  const later = Buffer.concat([CARDS, Buffer.from('"x <audio src=\'media/song.mp3\'></audio>",y,html,basic\r\n')])
  const second = await refusedImport(t, setup_, zipOf([{ name: 'cards.csv', data: later }, { name: 'media/robin.png', data: ROBIN, method: 'store' }]), 400, 'missing_media', 'a sound no file is there for')
  t.match(second.error, /line 4/)
})

test('media of a kind not kept is 415 unsupported_media, one over 20 MiB 413 media_too_large; cards.csv that is not cards is 400 invalid_import', async (t) => {
  const setup_ = await setup(t)
  const showing = (file: Buffer, name = 'robin.png') => zipOf([{ name: 'cards.csv', data: CARDS }, { name: `media/${name}`, data: file, method: 'store' }])
  const svg = await refusedImport(t, setup_, showing(samples.svg()), 415, 'unsupported_media', 'an SVG named .png')
  t.match(svg.error, /media\/robin\.png/, 'the message names the file')
  await refusedImport(t, setup_, showing(samples.html()), 415, 'unsupported_media', 'HTML')
  await refusedImport(t, setup_, showing(Buffer.alloc(0)), 415, 'unsupported_media', 'an empty file')
  const large = await refusedImport(t, setup_, showing(samples.png(MAX_MEDIA_BYTES + 1)), 413, 'media_too_large', 'an image of 20 MiB and a byte')
  t.match(large.error, /media\/robin\.png is larger than 20 MiB/)
  // a file no card shows is not read, nor kept
  const unshown = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }, { name: 'media/notes.svg', data: samples.svg(), method: 'store' }])
  t.equal((await importZip(setup_.app, setup_.user.jwtToken, { folder: ['Inbox'], flashcardName: 'Unshown files', archive: unshown })).statusCode, 201, 'a file no card shows is no refusal')
  t.same(await storedMedia(setup_.app), { records: 1, files: 1, chunks: 1, unrecorded: 0 }, 'and is not kept')

  const csv = (text: string) => zipOf([{ name: 'cards.csv', data: Buffer.from(text) }])
  const broken = await refusedImport(t, setup_, csv('front,back\r\n"never closed,b\r\n'), 400, 'invalid_import', 'a quote never closed')
  t.match(broken.error, /line 2/)
  await refusedImport(t, setup_, csv('front,back,format,type\r\nno deletion,,text,cloze\r\n'), 400, 'invalid_import', 'a cloze row without a deletion')
  await refusedImport(t, setup_, zipOf([{ name: 'cards.csv', data: Buffer.from([0x66, 0x2c, 0xff, 0x0d, 0x0a]) }]), 400, 'invalid_import', 'cards.csv not in UTF-8')
  await refusedImport(t, setup_, csv('front,back\r\n'), 400, 'invalid_import', 'no cards')
})

test('media past the quota is 409 quota_exceeded, saying how much room the archive needs; media the account holds takes none', async (t) => {
  const setup_ = await setup(t, { quotas: { mediaBytes: 100_000 } })
  const { app, user } = setup_
  const robin = samples.png(15_000)
  const owl = samples.jpeg(20_000)
  const cards = Buffer.concat([CARDS, Buffer.from('"<img src=""media/owl.jpg"">",an owl,html,basic\r\n')])
  const archive = zipOf([{ name: 'cards.csv', data: cards }, { name: 'media/robin.png', data: robin, method: 'store' }, { name: 'media/owl.jpg', data: owl, method: 'store' }])
  const first = await importZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: 'Birds', archive })
  t.equal(first.statusCode, 201, '35,000 bytes of media fit in 100,000')
  await uploaded(app, user.jwtToken, samples.gif(60_000))

  const again = await importZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: 'Birds again', archive })
  t.equal(again.statusCode, 201, 'with 5,000 bytes free, the same archive again needs none: its media are the account\'s already')
  t.same({ added: again.json().mediaAdded, reused: again.json().mediaReused, bytes: again.json().mediaBytesAdded }, { added: '0', reused: '2', bytes: '0' })

  const eagle = samples.gif(12_000)
  const more = zipOf([
    { name: 'cards.csv', data: Buffer.concat([cards, Buffer.from('"<img src=""media/eagle.gif"">",an eagle,html,basic\r\n')]) },
    { name: 'media/robin.png', data: robin, method: 'store' }, { name: 'media/owl.jpg', data: owl, method: 'store' }, { name: 'media/eagle.gif', data: eagle, method: 'store' }
  ])
  const over = await refusedImport(t, setup_, more, 409, 'quota_exceeded', 'an eagle of 12,000 bytes where 5,000 are free')
  t.match(over.error, /take 12,000 bytes/, 'how much the new media need (the robin and the owl are there already)')
  t.match(over.error, /room for 5,000 bytes more/, 'how much room there is')
  t.match(over.error, /delete at least 7,000 bytes/, 'how much to free')
  t.match(over.error, /100,000 bytes of media/, 'and the quota')
})

test('two imports at once that fit the media quota each but not together: one is stored, the other refused, its files gone', async (t) => {
  const { app, user } = await setup(t, { quotas: { mediaBytes: 100_000 } })
  const archives = [samples.png(60_000), samples.png(60_000)].map((robin) => zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: robin, method: 'store' }]))
  const answers = await Promise.all(archives.map(async (archive, index) => await importZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: `Robin ${index}`, archive })))
  t.same(answers.map((answer) => answer.statusCode).sort(), [201, 409], 'the first to be stored fits; the other would pass the quota')
  const refused = answers.find((answer) => answer.statusCode === 409)?.json<Refused>()
  t.equal(refused?.code, 'quota_exceeded')
  t.match(refused?.error, /take 60,000 bytes.*room for 40,000 bytes more.*delete at least 20,000 bytes/, 'whichever step refused it, it says the room it needs')
  t.same(await storedMedia(app), { records: 1, files: 1, chunks: 1, unrecorded: 0 }, 'the refused one left no file, not even for the sweep')
})

test('a refusal after the media were written (a name taken) removes them: no card, no media, no file left', async (t) => {
  const setup_ = await setup(t)
  const { app, user } = setup_
  await expectOk(app, 'create-flashcard', { jwtToken: user.jwtToken, folder: ['Inbox'], flashcardName: 'Imported', cards: [] }, 201)
  const archive = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }])
  await refusedImport(t, setup_, archive, 409, 'name_taken', 'a flashcard of that name there already')
  t.same(await storedMedia(app), { records: 0, files: 0, chunks: 0, unrecorded: 0 }, 'the file written for it is gone, not left for the sweep')
  const alike = await importZip(app, user.jwtToken, { folder: ['Inbox'], flashcardName: 'IMPORTED', archive })
  t.equal(alike.json().code, 'name_too_similar')
  await refusedImport(t, { app, user }, archive, 409, 'name_taken', 'again')
})

test('the form: token first, folder and name, then the file; a folder that is not there is 404 before the file is read', async (t) => {
  const setup_ = await setup(t)
  const { app, user } = setup_
  const archive = zipOf([{ name: 'cards.csv', data: CARDS }, { name: 'media/robin.png', data: ROBIN, method: 'store' }])
  const before = await storedState(app)
  const send = async (parts: Parameters<typeof formBody>[0]) => {
    const { payload, headers } = formBody(parts)
    return await app.inject({ method: 'POST', url: '/api/import-flashcard-zip', payload, headers })
  }
  const file = { name: 'file', file: archive, type: 'application/zip' }
  const token = { name: 'jwtToken', value: user.jwtToken }
  const cases: Array<[string, Parameters<typeof formBody>[0], number, string]> = [
    ['no token', [{ name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }, file], 400, 'invalid_upload'],
    ['a forged token', [{ name: 'jwtToken', value: 'not.a.token' }, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }, file], 401, 'invalid_token'],
    ['no folder', [token, { name: 'flashcardName', value: 'x' }, file], 400, 'invalid_field'],
    ['no name', [token, { name: 'folder', value: 'Inbox' }, file], 400, 'invalid_field'],
    ['an empty name', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: '' }, file], 400, 'invalid_field'],
    ['a name of 101 characters', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x'.repeat(101) }, file], 400, 'invalid_field'],
    ['a reserved name', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'cards' }, file], 400, 'invalid_name'],
    ['two names', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }, { name: 'flashcardName', value: 'y' }, file], 400, 'invalid_upload'],
    ['no file', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }], 400, 'invalid_upload'],
    ['a field after the file', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }, file, { name: 'note', value: 'x' }], 400, 'invalid_upload'],
    ['an empty file', [token, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'x' }, { ...file, file: Buffer.alloc(0) }], 400, 'invalid_upload'],
    ['a folder that is not there', [token, { name: 'folder', value: 'Inbox' }, { name: 'folder', value: 'Nowhere' }, { name: 'flashcardName', value: 'x' }, file], 404, 'folder_not_found']
  ]
  for (const [what, parts, status, code] of cases) {
    const response = await send(parts)
    t.equal(response.statusCode, status, what)
    t.equal(response.json<Refused>().code, code, what)
  }
  const json = await post(app, 'import-flashcard-zip', { jwtToken: user.jwtToken, folder: ['Inbox'], flashcardName: 'x' })
  t.equal(json.statusCode, 415, 'a JSON body')
  t.equal(json.json<Refused>().code, 'unsupported_content_type')
  t.equal(await storedState(app), before, 'nothing is stored for any of them')
})

test('an archive over 200 MiB is 413 archive_too_large: announced, before it is read; sent without a length, at the byte past it', async (t) => {
  const setup_ = await setup(t)
  const { app, user } = setup_
  const before = await storedState(app)
  const { payload: head } = formBody([{ name: 'jwtToken', value: user.jwtToken }, { name: 'folder', value: 'Inbox' }, { name: 'flashcardName', value: 'Big' }])
  const boundary = /^--(\S+)\r\n/.exec(head.toString('latin1'))?.[1] ?? ''
  const opening = Buffer.concat([head.subarray(0, head.length - `--${boundary}--\r\n`.length),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`)])
  const closing = Buffer.from(`\r\n--${boundary}--\r\n`)
  const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` }
  /** the form, its file `size` bytes of zeros, made as it is read */
  const form = (size: number) => Readable.from((function * () {
    yield opening
    const piece = Buffer.alloc(1024 * 1024)
    for (let left = size; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left)
    yield closing
  })())

  const announced = await app.inject({ method: 'POST', url: '/api/import-flashcard-zip', payload: form(1), headers: { ...headers, 'content-length': String(ARCHIVE_LIMITS.maxArchiveBytes + 1024 * 1024) } })
  t.equal(announced.statusCode, 413, 'a Content-Length past the limit')
  t.equal(announced.json<Refused>().code, 'archive_too_large')
  const streamed = await app.inject({ method: 'POST', url: '/api/import-flashcard-zip', payload: form(ARCHIVE_LIMITS.maxArchiveBytes + 1), headers })
  t.equal(streamed.statusCode, 413, 'a byte past the limit, sent without a Content-Length')
  t.equal(streamed.json<Refused>().code, 'archive_too_large')
  t.match(streamed.json<Refused>().error, /larger than 200 MiB/)
  t.equal(await storedState(app), before, 'nothing is stored')
})

import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, registerUser } from '../helpers/app.js'
import { formBody, samples } from '../helpers/media.js'

/** A connection from `localAddress` (any 127.x.y.z is this machine's loopback), with everything it receives. */
interface Client { socket: Socket, received: () => string, closed: Promise<void>, isClosed: () => boolean }

async function open (app: FastifyInstance, localAddress: string): Promise<Client> {
  const { port } = app.server.address() as { port: number }
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  let received = ''
  let closed = false
  socket.on('data', (chunk: Buffer) => { received += chunk.toString() })
  socket.on('error', () => {})
  const whenClosed = once(socket, 'close').then(() => { closed = true })
  await once(socket, 'connect')
  return { socket, received: () => received, closed: whenClosed, isClosed: () => closed }
}

/** An API call over a connection of its own, from 127.0.0.1: its status. */
async function call (app: FastifyInstance, operation: string, body: object): Promise<number> {
  const { port } = app.server.address() as { port: number }
  const response = await fetch(`http://127.0.0.1:${port}/api/${operation}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  await response.arrayBuffer()
  return response.status
}

async function listening (t: { teardown: (fn: () => unknown) => void }, limits: { requestTimeoutMs: number, perAddress: number, uploadTimeoutMs?: number },
  shedding: { maxInFlight: number, maxInFlightPerUser: number, maxUploads?: number, maxUploadsPerUser?: number } = { maxInFlight: 64, maxInFlightPerUser: 16 }): Promise<FastifyInstance> {
  const app = await buildTestApp(t, import.meta.filename, {
    connectionLimits: limits,
    // the service's own limits on requests under way, as it runs: slow clients must not take them
    loadShedding: shedding
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

test('slow and idle connections hold no place: 500 of them open, another user is served; each slow one gets 408 and is closed', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 4000, perAddress: 100 })
  const user = await registerUser(app)
  await call(app, 'create-folder', { jwtToken: user.jwtToken, path: ['Open'] })

  // 400 clients send a POST's headers and one byte of its body, then nothing; 100 send nothing at all.
  // From ten addresses, so that the cap per address (100) lets all of them stay open.
  const slow: Client[] = []
  for (let n = 0; n < 500; n++) {
    const client = await open(app, `127.0.0.${2 + (n % 10)}`)
    if (n < 400) {
      client.socket.write('POST /api/get-user HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{')
    }
    slow.push(client)
  }

  // far more of them than the 64 places for requests under way: another user is served all the same
  const statuses: number[] = []
  for (let n = 0; n < 20; n++) {
    statuses.push(await call(app, n % 2 === 0 ? 'get-today-cards' : 'get-user', { jwtToken: user.jwtToken }))
  }
  t.same(statuses, Array(20).fill(200), 'every call of the other user answered 200')
  t.equal(slow.filter((client) => client.isClosed()).length, 0, 'while every slow connection was still open')

  // the slow ones do not arrive in time: 408 in the error contract, and the connection closed
  await Promise.all(slow.map(async (client) => await client.closed))
  const bodySent = slow.slice(0, 400)
  t.ok(bodySent.every((client) => client.received().startsWith('HTTP/1.1 408 ')), 'every request whose body did not arrive got 408')
  const answer = bodySent[0]?.received() ?? ''
  t.match(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { error: /did not arrive whole within 4 seconds/ })
  t.ok(slow.slice(400).every((client) => client.received() === '' || client.received().startsWith('HTTP/1.1 408 ')),
    'a connection that sent nothing is closed (with 408 or nothing)')
  t.equal(await call(app, 'get-user', { jwtToken: user.jwtToken }), 200, 'and the service serves on')
})

test('a body trickled a byte at a time is cut off at the time limit, not at the last byte', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 2000, perAddress: 100 })
  const client = await open(app, '127.0.0.2')
  client.socket.write('POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n')
  const trickle = setInterval(() => { if (!client.isClosed()) client.socket.write(' ') }, 200)
  t.teardown(() => clearInterval(trickle))
  await client.closed
  t.match(client.received(), /^HTTP\/1\.1 408 /)
})

test('connections from one address are capped: past the cap a new one gets 429 and is closed; other addresses are not affected', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 10_000, perAddress: 5 })
  const held = await Promise.all(Array.from({ length: 5 }, async () => await open(app, '127.0.0.3')))
  t.teardown(() => { for (const client of held) client.socket.destroy() })

  const sixth = await open(app, '127.0.0.3')
  await sixth.closed
  t.match(sixth.received(), /^HTTP\/1\.1 429 /)
  t.match(sixth.received(), /retry-after: 1/i)
  t.match(sixth.received(), /more than 5 connections are open from this address/)
  t.notOk(held.some((client) => client.isClosed()), 'the five open ones stay open')

  const user = await registerUser(app)
  t.equal(await call(app, 'get-user', { jwtToken: user.jwtToken }), 200, 'another address is served')

  // a connection closed gives its place back
  held.pop()?.socket.destroy()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const again = await open(app, '127.0.0.3')
  again.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  await again.closed
  t.match(again.received(), /^HTTP\/1\.1 200 /)
})

/**
 * Starts an upload-media of `file` on a connection of its own and sends its body `bytesPerTick`
 * every 100 ms; the status line of its answer once the connection has it.
 */
async function paced (app: FastifyInstance, jwtToken: string, file: Buffer, bytesPerTick: number): Promise<{ client: Client, answered: Promise<string> }> {
  const { payload, headers } = formBody([{ name: 'jwtToken', value: jwtToken }, { name: 'file', file }])
  const client = await open(app, '127.0.0.4')
  client.socket.write(`POST /api/upload-media HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${headers['content-type'] ?? ''}\r\n` +
    `Content-Length: ${payload.length}\r\nConnection: close\r\n\r\n`)
  let sent = 0
  const ticks = setInterval(() => {
    if (client.isClosed() || sent >= payload.length) {
      clearInterval(ticks)
      return
    }
    client.socket.write(payload.subarray(sent, sent + bytesPerTick))
    sent += bytesPerTick
  }, 100)
  const answered = client.closed.then(() => {
    clearInterval(ticks)
    return client.received()
  })
  return { client, answered }
}

test('an upload may take longer than a request, as long as it keeps coming; a trickle is cut off', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 1000, perAddress: 100 })
  const user = await registerUser(app)

  // 480 KiB at 160 KiB/s: three times the request time limit, at a pace well over 64 KiB a second
  const steady = await paced(app, user.jwtToken, samples.png(480 * 1024), 16 * 1024)
  const answer = await steady.answered
  t.match(answer, /^HTTP\/1\.1 201 /, 'the steady upload is stored (201)')

  // 100 KiB at 20 KiB/s: under 64 KiB in a request's time
  const trickle = await paced(app, user.jwtToken, samples.png(100 * 1024), 2 * 1024)
  const cut = await trickle.answered
  t.match(cut, /^HTTP\/1\.1 408 /, 'the trickled upload gets 408')
  t.match(cut, /brought less than 64 KiB in 1 seconds/)

  // and a JSON body at the same steady pace still has the request's time, not an upload's
  const client = await open(app, '127.0.0.2')
  client.socket.write('POST /api/get-user HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 480000\r\n\r\n')
  const json = setInterval(() => { if (!client.isClosed()) client.socket.write(' '.repeat(16 * 1024)) }, 100)
  t.teardown(() => clearInterval(json))
  await client.closed
  t.match(client.received(), /^HTTP\/1\.1 408 /, 'a request body that takes longer than a request gets 408')
  t.match(client.received(), /did not arrive whole within 1 seconds/)
})

test('an upload is cut off at the upload time limit however steady it is', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 1000, uploadTimeoutMs: 1500, perAddress: 100 })
  const user = await registerUser(app)
  const steady = await paced(app, user.jwtToken, samples.png(800 * 1024), 16 * 1024)
  const answer = await steady.answered
  t.match(answer, /^HTTP\/1\.1 408 /, '408 past the upload time limit')
  t.match(answer, /the upload did not arrive whole within 1\.5 seconds/)
})

test('uploads under way take places of their own: slow ones leave every request its place, past their own cap 503', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 2000, perAddress: 100 }, { maxInFlight: 2, maxInFlightPerUser: 16, maxUploads: 3, maxUploadsPerUser: 3 })
  const user = await registerUser(app)
  // three uploads arriving slowly for a request (200 KiB/s: 4 s for 800 KiB), more than the two places for requests,
  // at a pace over the upload floor with every upload place taken
  const uploads = await Promise.all(Array.from({ length: 3 }, async () => await paced(app, user.jwtToken, samples.png(800 * 1024), 20 * 1024)))
  await new Promise((resolve) => setTimeout(resolve, 300))
  const statuses: number[] = []
  for (let n = 0; n < 5; n++) statuses.push(await call(app, 'get-user', { jwtToken: user.jwtToken }))
  t.same(statuses, Array(5).fill(200), 'requests are served while the uploads arrive')
  const fourth = await paced(app, user.jwtToken, samples.png(800 * 1024), 20 * 1024)
  t.match(await fourth.answered, /^HTTP\/1\.1 503 /, 'a fourth upload at once: 503')
  for (const upload of uploads) t.match(await upload.answered, /^HTTP\/1\.1 201 /, 'each of the three is stored')
})

test('one account holds at most its share of the uploads: past it 429, while another account uploads', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 2000, perAddress: 100 }, { maxInFlight: 64, maxInFlightPerUser: 16, maxUploads: 16, maxUploadsPerUser: 2 })
  const [greedy, other] = [await registerUser(app), await registerUser(app)]
  const held = await Promise.all(Array.from({ length: 2 }, async () => await paced(app, greedy.jwtToken, samples.png(300 * 1024), 10 * 1024)))
  await new Promise((resolve) => setTimeout(resolve, 300))
  const third = await paced(app, greedy.jwtToken, samples.png(300 * 1024), 10 * 1024)
  const refused = await third.answered
  t.match(refused, /^HTTP\/1\.1 429 /, 'a third upload of the same account at once: 429')
  t.match(refused, /this account has 2 uploads under way/)
  const others = await paced(app, other.jwtToken, samples.png(300 * 1024), 10 * 1024)
  t.match(await others.answered, /^HTTP\/1\.1 201 /, 'another account\'s upload is stored meanwhile')
  for (const upload of held) t.match(await upload.answered, /^HTTP\/1\.1 201 /, 'and the first two are')
})

test('a body still coming after its answer keeps a request\'s time: the connection is closed, not held for an upload\'s', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 1000, uploadTimeoutMs: 60_000, perAddress: 100 })
  const probes: Array<[string, string]> = [
    ['a GET sent with a body', 'GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n'],
    ['an upload refused before its body (415)', 'POST /api/upload-media HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n']
  ]
  for (const [what, head] of probes) {
    const client = await open(app, '127.0.0.5')
    client.socket.write(head)
    const trickle = setInterval(() => { if (!client.isClosed()) client.socket.write('x'.repeat(100)) }, 200)
    t.teardown(() => clearInterval(trickle))
    const closedInTime = await Promise.race([client.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 4000))])
    clearInterval(trickle)
    t.ok(closedInTime, `${what}: answered, then closed within the request time (${client.received().split('\r\n')[0] ?? ''})`)
    client.socket.destroy()
  }
})

test('an upload whose token has not arrived holds no upload place and has a request\'s time', async (t) => {
  const app = await listening(t, { requestTimeoutMs: 1000, uploadTimeoutMs: 60_000, perAddress: 100 }, { maxInFlight: 64, maxInFlightPerUser: 16, maxUploads: 1, maxUploadsPerUser: 1 })
  const user = await registerUser(app)
  // a form that opens its jwtToken part and trickles it, 8 KiB a second: fast enough for an upload, never a token
  const client = await open(app, '127.0.0.6')
  client.socket.write('POST /api/upload-media HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 20000000\r\n\r\n' +
    '--XX\r\nContent-Disposition: form-data; name="jwtToken"\r\n\r\n')
  const trickle = setInterval(() => { if (!client.isClosed()) client.socket.write('a'.repeat(1600)) }, 200)
  t.teardown(() => clearInterval(trickle))
  await new Promise((resolve) => setTimeout(resolve, 300))
  const upload = await paced(app, user.jwtToken, samples.png(100 * 1024), 20 * 1024)
  t.match(await upload.answered, /^HTTP\/1\.1 201 /, 'a real upload takes the one upload place meanwhile')
  await client.closed
  clearInterval(trickle)
  t.match(client.received(), /^HTTP\/1\.1 408 /, 'the token that never came: 408')
  t.match(client.received(), /did not arrive whole within 1 seconds/)
})

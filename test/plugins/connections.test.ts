import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, registerUser } from '../helpers/app.js'

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

async function listening (t: { teardown: (fn: () => unknown) => void }, limits: { requestTimeoutMs: number, perAddress: number }): Promise<FastifyInstance> {
  const app = await buildTestApp(t, import.meta.filename, {
    connectionLimits: limits,
    // the service's own limits on requests under way, as it runs: slow clients must not take them
    loadShedding: { maxInFlight: 64, maxInFlightPerUser: 16 }
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

import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, registerUser, type TestUser } from '../helpers/app.js'
import { formBody, samples } from '../helpers/media.js'

// A short period, so that a test lasts a few seconds: the floors are bytes per period, so the
// figures below are the service's own, at a tenth of its default time.
const PERIOD_MS = 1000
const TICK_MS = 100
const KiB = 1024
// just over the base floor of 64 KiB a period, as the hostile trial's 7 KiB/s is at the default period
const TRICKLE = 80 * KiB
// what an account's four uploads at once each bring over a 2 Mbit/s link, at the default period
const GOOD = 600 * KiB

async function listening (t: Parameters<typeof buildTestApp>[0]): Promise<FastifyInstance> {
  const app = await buildTestApp(t, import.meta.filename, {
    connectionLimits: { requestTimeoutMs: PERIOD_MS, perAddress: 100 },
    // the service's own upload places
    loadShedding: { maxInFlight: 64, maxInFlightPerUser: 16, maxUploads: 16, maxUploadsPerUser: 4 }
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

/**
 * Starts an upload-media of `file` on a connection of its own from `localAddress`, sending its
 * body at `perPeriod` bytes a period, a tick at a time (what a late tick missed goes with the
 * next, as a client held to a rate sends); the connection, and everything it received once it is closed.
 */
function upload (app: FastifyInstance, jwtToken: string, file: Buffer, perPeriod: number, localAddress: string): { socket: Socket, answered: Promise<string> } {
  const { port } = app.server.address() as { port: number }
  const { payload, headers } = formBody([{ name: 'jwtToken', value: jwtToken }, { name: 'file', file }])
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  let received = ''
  socket.on('data', (chunk: Buffer) => { received += chunk.toString() })
  socket.on('error', () => {})
  // not events.once, which rejects on the error of a write to a connection the service has cut off
  const closed = new Promise((resolve) => socket.once('close', resolve))
  // written once the connection is open; a connection cut off meanwhile reports to the error listener
  socket.write(`POST /api/upload-media HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${headers['content-type'] ?? ''}\r\n` +
    `Content-Length: ${payload.length}\r\nConnection: close\r\n\r\n`)
  const start = Date.now()
  let sent = 0
  const ticks = setInterval(() => {
    if (socket.destroyed || sent >= payload.length) {
      clearInterval(ticks)
      return
    }
    const due = Math.floor(perPeriod * (Date.now() - start) / PERIOD_MS)
    socket.write(payload.subarray(sent, due))
    sent = due
  }, TICK_MS)
  const answered = closed.then(() => {
    clearInterval(ticks)
    return received
  })
  return { socket, answered }
}

/** The upload places held now (none on a service that does not count them so). */
function placesHeld (app: FastifyInstance): number {
  return (app as Partial<FastifyInstance>).uploadPlaces?.held ?? 0
}

/** Waits until every upload place is held; whether they were within a few periods. */
async function allPlacesHeld (app: FastifyInstance): Promise<boolean> {
  for (let waited = 0; waited < 5 * PERIOD_MS; waited += TICK_MS / 2) {
    if (placesHeld(app) === 16) return true
    await sleep(TICK_MS / 2)
  }
  return false
}

function statusOf (answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0)
}

/**
 * The hostile trial: `perAccount` uploads of each account, trickling just over the base floor, each
 * started again at once when it is cut off or refused, until the test ends. What their answers were.
 */
function trickles (t: { teardown: (fn: () => unknown) => void }, app: FastifyInstance, accounts: TestUser[], perAccount: number): { answers: Map<number, number> } {
  const answers = new Map<number, number>()
  const open = new Set<Socket>()
  let stopped = false
  t.teardown(() => {
    stopped = true
    for (const socket of open) socket.destroy()
  })
  accounts.forEach((account, index) => {
    for (let n = 0; n < perAccount; n++) {
      void (async () => {
        while (!stopped) {
          // a file it will not finish sending while the test lasts
          const trickle = upload(app, account.jwtToken, samples.png(2 * 1024 * KiB), TRICKLE, `127.0.1.${index + 1}`)
          open.add(trickle.socket)
          const status = statusOf(await trickle.answered)
          open.delete(trickle.socket)
          if (stopped) break
          answers.set(status, (answers.get(status) ?? 0) + 1)
          if (status !== 408) await sleep(50)
        }
      })()
    }
  })
  return { answers }
}

/**
 * Sends `file` at `perPeriod` until it is taken in: on 503 again after its Retry-After, scaled
 * to the short period as the service's is to its own (5 s of 10 s); at most `periods` periods.
 * Every status it got, and when (ms after its first attempt) it was answered 201, or null.
 */
async function uploadWhenAdmitted (app: FastifyInstance, user: TestUser, file: Buffer, perPeriod: number, periods: number): Promise<{ statuses: number[], answeredAfterMs: number | null }> {
  const start = Date.now()
  const statuses: number[] = []
  while (Date.now() - start < periods * PERIOD_MS) {
    const attempt = upload(app, user.jwtToken, file, perPeriod, '127.0.2.1')
    const answer = await attempt.answered
    const status = statusOf(answer)
    statuses.push(status)
    if (status !== 503) return { statuses, answeredAfterMs: status === 201 ? Date.now() - start : null }
    const retryAfterSeconds = Number(/retry-after: (\d+)/i.exec(answer)?.[1] ?? 1)
    await sleep(retryAfterSeconds * 1000 * PERIOD_MS / 10_000)
  }
  return { statuses, answeredAfterMs: null }
}

test('20 uploads of 5 accounts trickling just over the base floor do not keep another user out: it is taken in within a few periods', async (t) => {
  const app = await listening(t)
  const hostile = await Promise.all(Array.from({ length: 5 }, async () => await registerUser(app)))
  const other = await registerUser(app)
  const { answers } = trickles(t, app, hostile, 4)
  t.ok(await allPlacesHeld(app), 'the trickles hold every upload place')

  const { statuses, answeredAfterMs } = await uploadWhenAdmitted(app, other, samples.png(), GOOD, 8)
  t.comment(`the other user's upload-media: ${statuses.join(', ')}, answered ${answeredAfterMs ?? 'never'} ms after its first attempt; ` +
    `by then the trickles got 408 ${answers.get(408) ?? 0} times, 503 ${answers.get(503) ?? 0}, 429 ${answers.get(429) ?? 0}`)
  t.equal(statuses.at(-1), 201, 'the other user\'s upload is stored (201), within eight periods')
  t.ok((answers.get(408) ?? 0) > 0, 'trickles were cut off to let it in (408)')
})

test('an upload at a good pace is never cut off while the places are full of trickles', async (t) => {
  const app = await listening(t)
  const hostile = await Promise.all(Array.from({ length: 4 }, async () => await registerUser(app)))
  const good = await registerUser(app)
  const { answers } = trickles(t, app, hostile, 4)
  t.ok(await allPlacesHeld(app), 'the trickles hold every upload place')
  const cutBefore = answers.get(408) ?? 0
  const held: number[] = []
  const sampling = setInterval(() => held.push(placesHeld(app)), TICK_MS)
  t.teardown(() => clearInterval(sampling))

  // 3 MiB at 600 KiB a period: several periods of a full service
  const { statuses, answeredAfterMs } = await uploadWhenAdmitted(app, good, samples.png(3 * 1024 * KiB), GOOD, 12)
  clearInterval(sampling)
  const cut = (answers.get(408) ?? 0) - cutBefore
  const full = held.filter((count) => count === 16).length
  const mostly = held.filter((count) => count > 12).length
  t.comment(`the good upload: ${statuses.join(', ')} (answered ${answeredAfterMs ?? 'never'} ms after its first attempt); meanwhile trickles were cut off ${cut} times, ` +
    `every place was held at ${full} of ${held.length} looks, more than 12 at ${mostly}`)
  t.equal(statuses.at(-1), 201, 'the good upload is stored (201)')
  t.notOk(statuses.includes(408), 'and never cut off')
  t.ok(cut > 0, 'while trickles were cut off for their pace')
  t.ok(full > 0, 'and every place was held meanwhile')
})

test('the floor follows the places in use: with few taken an upload at the base floor arrives; with most taken it is cut off as the service is busy', async (t) => {
  const app = await listening(t)
  const users = await Promise.all(Array.from({ length: 4 }, async () => await registerUser(app)))

  // quiet: four uploads just over the base floor, a quarter of the places, all arrive over several periods
  const quiet = users.map((user, index) => upload(app, user.jwtToken, samples.png(300 * KiB), TRICKLE, `127.0.3.${index + 1}`))
  const quietAnswers = await Promise.all(quiet.map(async (attempt) => statusOf(await attempt.answered)))
  t.same(quietAnswers, [201, 201, 201, 201], 'with a quarter of the places in use, uploads at the base floor are stored')

  // busy: 10 uploads at a steady pace (240 KiB a period) hold most of the places; one more at the base floor is cut
  const busyUsers = await Promise.all(Array.from({ length: 3 }, async () => await registerUser(app)))
  const steady = Array.from({ length: 10 }, (_, n) =>
    upload(app, busyUsers[n % 3]?.jwtToken ?? '', samples.png(2 * 1024 * KiB), 240 * KiB, `127.0.4.${(n % 3) + 1}`))
  t.teardown(() => { for (const attempt of steady) attempt.socket.destroy() })
  await sleep(3 * TICK_MS)
  const slow = upload(app, users[0]?.jwtToken ?? '', samples.png(300 * KiB), TRICKLE, '127.0.3.1')
  const answer = await slow.answered
  t.equal(statusOf(answer), 408, 'with most places in use, the same pace is cut off (408)')
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string, code: string }
  t.equal(body.code, 'request_timeout')
  t.match(body.error, /the service is busy/)
  t.match(body.error, /retry over a faster link, or later/)
})

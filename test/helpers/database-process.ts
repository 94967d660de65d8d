import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startEmbeddedDatabase } from '../../src/db/embedded.js'

/**
 * Waits until `check` holds, asking every `everyMs`; false if it still does
 * not after `withinMs`. The limit only keeps a broken test from hanging: a
 * test asserts what was reached, not how soon.
 */
export async function eventually (check: () => boolean | Promise<boolean>, withinMs: number, everyMs = 100): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < withinMs; await sleep(everyMs)) {
    if (await check()) return true
  }
  return await check()
}

function listenOn (port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once('error', reject)
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server))
  })
}

/**
 * Kills the database server (SIGKILL) and takes its port, so that every
 * restart of it fails until the returned listener is closed. Should a restart
 * come up before the port is taken, that server is killed in turn.
 */
export async function killAndHoldPort (port: number, currentPid: () => number | undefined | Promise<number | undefined>): Promise<Server> {
  for (let round = 0; round < 5; round++) {
    const pid = await currentPid()
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    for (const started = Date.now(); Date.now() - started < 2000; await sleep(5)) {
      const held = await listenOn(port).catch(() => null)
      if (held !== null) return held
    }
  }
  throw new Error(`could not take port ${port} from the database server`)
}

export async function release (server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/**
 * An embedded database of the test's own, in a data folder of its own, with what its supervisor
 * reported: for tests that could stop a database, so that only they lose it, and that check it
 * never stopped (`exits()`).
 */
export async function ownDatabase (t: { teardown: (fn: () => unknown) => void }, name: string): Promise<{ url: string, exits: () => number }> {
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const events: string[] = []
  const database = await startEmbeddedDatabase({ dataDir, report: (event) => events.push(event.kind) })
  t.teardown(() => database.stop())
  return { url: `${database.url}/${name.replace(/\W+/g, '_')}`, exits: () => events.filter((kind) => kind === 'exited').length }
}

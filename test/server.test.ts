import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { killAndHoldPort, release } from './helpers/database-process.js'

test('the embedded database cannot be started again: /health answers 503, then the service exits with an error', async (t) => {
  // a database of this test's own, started by the service as in production, with the default restart policy
  const dataDir = await mkdtemp(join(tmpdir(), 'server-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }
  delete env.MONGODB_URL
  delete env.JWT_SECRET
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)))
  t.teardown(() => { if (server.exitCode === null) server.kill('SIGKILL') })

  let log = ''
  server.stderr.on('data', (chunk: Buffer) => { log += chunk.toString() })
  const base = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      const address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1]
      if (address !== undefined) resolve(address)
    })
    server.once('exit', (code) => reject(new Error(`the server exited (${String(code)}) before listening:\n${log}`)))
  })
  interface Health { code: number, databaseProcess?: string }
  const health = async (): Promise<Health | null> => {
    try {
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) })
      const { databaseProcess } = await response.json() as { databaseProcess?: string }
      return { code: response.status, databaseProcess }
    } catch {
      return null // closed, or gone
    }
  }
  t.equal((await health())?.code, 200, 'ready')

  const databasePort = Number(/the embedded database listens on mongodb:\/\/127\.0\.0\.1:(\d+)/.exec(log)?.[1])
  t.ok(databasePort > 0, `the log names the database's port (${databasePort})`)
  const pidFile = join(dataDir, 'secantus', 'secantusd.pid')
  const held = await killAndHoldPort(databasePort, async () => Number(await readFile(pidFile, 'utf8')))
  t.teardown(() => release(held))

  // asked until the service exits; the limit only keeps a service that never exits from hanging the test
  const answers: Health[] = []
  for (const started = Date.now(); server.exitCode === null && Date.now() - started < 30_000; await sleep(100)) {
    const answer = await health()
    if (answer !== null) answers.push(answer)
  }
  t.ok(answers.length > 0 && answers.every((answer) => answer.code === 503), `/health answered 503 while the restarts failed (${answers.length} answers)`)
  t.ok(answers.some((answer) => answer.databaseProcess === 'restarting'), 'saying the database is restarting')

  const code = await Promise.race([exited, sleep(1000, 'still running')])
  t.equal(code, 1, 'the service exited with code 1, for its process manager to start it again')
  t.match(log, /"level":60[^\n]*the embedded database could not be restarted: 5 attempts in a row failed/, 'a fatal line says why')
  t.match(log, /"level":60[^\n]*exiting with code 1/)
})

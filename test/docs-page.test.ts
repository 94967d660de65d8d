import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { buildTestApp } from './helpers/app.js'

const run = promisify(execFile)
const CHROMIUM = '/usr/bin/chromium'

// flags that keep headless Chromium off the network and out of the way
const HEADLESS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--virtual-time-budget=15000'
]

test('the /docs page renders every operation in a headless browser', { skip: existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `Chromium is not installed at ${CHROMIUM} (Debian: apt-get install chromium); the page was not rendered` }, async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const url = `http://127.0.0.1:${address.port}/docs/`
  const profile = await mkdtemp(join(tmpdir(), 'docs-chromium-'))
  t.teardown(() => rm(profile, { recursive: true, force: true }))

  const { stdout: dom } = await run(CHROMIUM, [...HEADLESS, `--user-data-dir=${join(profile, 'dom')}`, '--dump-dom', url], { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 })
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> }
  const operations = Object.keys(document.paths)
  t.ok(operations.length > 5)
  for (const path of operations) {
    // swagger-ui writes each path into a data-path attribute of the operation's row
    t.ok(dom.includes(`data-path="${path}"`), `the page shows ${path}`)
  }
  t.match(dom, /Flashcard learning service/)

  const screenshot = join(profile, 'docs.png')
  await run(CHROMIUM, [...HEADLESS, `--user-data-dir=${join(profile, 'shot')}`, '--window-size=1280,3000', `--screenshot=${screenshot}`, url], { timeout: 60_000 })
  const png = await readFile(screenshot)
  t.same([...png.subarray(1, 4)].map((byte) => String.fromCharCode(byte)).join(''), 'PNG')
  t.ok((await stat(screenshot)).size > 20_000, 'the screenshot is a rendered page, not a blank one')
})

import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'
import { buildTestApp } from '../helpers/app.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

test('the study page is served from this origin under a policy that allows no inline script or style', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)

  // over a real connection: the headers as a browser gets them, every copy of one joined by ", "
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const page = await fetch(`http://127.0.0.1:${address.port}/`)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  const policy = page.headers.get('content-security-policy') ?? ''
  t.notMatch(policy, /,/, 'one policy, in place of the service-wide one rather than beside it')
  t.match(policy, /script-src 'self'(;|$)/, 'scripts only from this origin')
  t.match(policy, /style-src 'self'(;|$)/, 'styles only from this origin')
  t.notMatch(policy, /unsafe-inline|unsafe-eval/)
  t.match(policy, /connect-src 'self'/, 'the page talks to this service only')
  t.match(policy, /img-src 'self'( data:)?(;|$)/, 'cards\' images from this origin\'s /media URLs only')
  t.match(policy, /media-src 'self'(;|$)/, 'and their sounds')

  const html = await page.text()
  t.match(html, /<script src="\/app\.js"/)
  t.match(html, /<link rel="stylesheet" href="\/app\.css"/)
  t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
  t.notMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler')
  t.notMatch(html, /https?:\/\//, 'nothing from another origin')

  const script = await app.inject({ method: 'GET', url: '/app.js' })
  t.equal(script.statusCode, 200)
  t.match(script.headers['content-type'], /^text\/javascript/)
  t.ok(script.body.length > 1000, 'the bundle of web/src')
  t.match(script.body, /\/api\//, 'it calls the API')
  t.notMatch(script.body, /^import |require\(/m, 'one self-contained script')
  t.equal((await app.inject({ method: 'GET', url: '/app.js' })).body, script.body, 'built once, the same each time')

  const style = await app.inject({ method: 'GET', url: '/app.css' })
  t.equal(style.statusCode, 200)
  t.match(style.headers['content-type'], /^text\/css/)
})

test('the page takes only types from the server: its bundle is web/src alone', async (t) => {
  // web/src/api-types.ts imports the route schemas with `import type`, which esbuild erases;
  // a value imported from src/ (or a package) would bring the server's code into the page
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['web/src/main.ts'],
    bundle: true,
    format: 'iife',
    write: false,
    metafile: true,
    logLevel: 'silent'
  })
  const modules = Object.keys(result.metafile.inputs)
  t.ok(modules.includes('web/src/api-types.ts'), 'the bundle is the page\'s, its wire types included')
  t.same(modules.filter((module) => !module.startsWith('web/src/')), [], 'no module from src/ or node_modules')
})

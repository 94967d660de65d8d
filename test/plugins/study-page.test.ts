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

test('the installable app: a manifest, its icons and a service worker at the root, allowed by the page\'s policy', async (t) => {
  const app = await buildTestApp(t, import.meta.filename)
  const page = await app.inject({ method: 'GET', url: '/' })
  const policy = String(page.headers['content-security-policy'])
  t.match(policy, /worker-src 'self'(;|$)/, 'the page may register its service worker from this origin')
  t.match(policy, /manifest-src 'self'(;|$)/, 'and read its manifest')
  t.match(page.body, /<link rel="manifest" href="\/manifest\.webmanifest">/, 'the page names its manifest')

  const manifest = await app.inject({ method: 'GET', url: '/manifest.webmanifest' })
  t.equal(manifest.statusCode, 200)
  t.match(manifest.headers['content-type'], /^application\/manifest\+json/)
  const read = manifest.json<{ start_url: string, scope: string, display: string, icons: Array<{ src: string, sizes: string, type: string }> }>()
  t.equal(read.scope, '/', 'the whole page is the app')
  t.equal(read.display, 'standalone')
  for (const icon of read.icons) {
    const file = await app.inject({ method: 'GET', url: icon.src })
    t.equal(file.statusCode, 200, `${icon.src} is served`)
    t.equal(file.headers['content-type'], 'image/png')
    const [width, height] = [file.rawPayload.readUInt32BE(16), file.rawPayload.readUInt32BE(20)]
    t.equal(`${width}x${height}`, icon.sizes, `${icon.src} is as large as the manifest says`)
  }
  t.equal((await app.inject({ method: 'GET', url: '/icons/..%2Fapp.css' })).statusCode, 404, 'the icons\' route serves its icons only')
  t.equal((await app.inject({ method: 'GET', url: '/icons/other.png' })).statusCode, 404)

  const worker = await app.inject({ method: 'GET', url: '/sw.js' })
  t.equal(worker.statusCode, 200)
  t.match(worker.headers['content-type'], /^text\/javascript/)
  t.equal(worker.headers['cache-control'], 'no-cache', 'a new service worker is seen at once')
  t.match(worker.body, /addEventListener\("fetch"/, 'it serves the page\'s requests')
  t.notMatch(worker.body, /^import |require\(/m, 'one self-contained script')
})

import fp from 'fastify-plugin'
import { build } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const WEB = fileURLToPath(new URL('../../web/', import.meta.url))

/**
 * The study page may run only its own script and style, from this origin, and
 * talk only to this origin: stricter than the rest of the service, whose /docs
 * page needs swagger-ui's inline scripts. Cards' images and sounds are the
 * service's own /media URLs, of this origin too. Its service worker (/sw.js) and
 * its manifest, which make it an installable app that opens offline, are of this
 * origin as well.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

/** Bundles one entry of the page's TypeScript (web/src) into one script, as the browser loads it. */
async function bundle (entry: string): Promise<string> {
  const result = await build({
    entryPoints: [`${WEB}src/${entry}`],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent'
  })
  return result.outputFiles[0]?.text ?? ''
}

/**
 * The study app at `/`: a page of plain TypeScript (web/) that calls only the
 * public API, as any client would. The script is bundled on its first request
 * and kept for the life of the process, so nothing is built at install and no
 * build output is kept in the repository.
 */
/** A bundle made on its first request and kept for the life of the process; a failed one is tried again. */
function bundledOnce (entry: string): () => Promise<string> {
  let script: Promise<string> | null = null
  return async () => {
    script ??= bundle(entry).catch((error: unknown) => {
      script = null
      throw error
    })
    return await script
  }
}

/** The icons of the installed app, by file name. */
const ICONS = new Set(['icon-192.png', 'icon-512.png', 'icon-maskable-512.png'])

export default fp(async function studyPage (app) {
  const scriptOnce = bundledOnce('main.ts')
  const workerOnce = bundledOnce('service-worker.ts')

  const page = { schema: { hide: true } }
  app.get('/', page, async (_request, reply) => reply
    .header('content-security-policy', PAGE_POLICY)
    .type('text/html; charset=utf-8')
    .send(await readFile(`${WEB}index.html`)))
  app.get('/app.js', page, async (_request, reply) => reply
    .header('cache-control', 'no-cache')
    .type('text/javascript; charset=utf-8')
    .send(await scriptOnce()))
  app.get('/app.css', page, async (_request, reply) => reply
    .header('cache-control', 'no-cache')
    .type('text/css; charset=utf-8')
    .send(await readFile(`${WEB}app.css`)))
  // at the root, so that it may serve the whole page; never from the HTTP cache, so a new one is seen at once
  app.get('/sw.js', page, async (_request, reply) => reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', PAGE_POLICY)
    .type('text/javascript; charset=utf-8')
    .send(await workerOnce()))
  app.get('/manifest.webmanifest', page, async (_request, reply) => reply
    .header('cache-control', 'no-cache')
    .type('application/manifest+json; charset=utf-8')
    .send(await readFile(`${WEB}manifest.webmanifest`)))
  app.get<{ Params: { name: string } }>('/icons/:name', page, async (request, reply) => {
    if (!ICONS.has(request.params.name)) return await reply.callNotFound()
    return await reply
      .header('cache-control', 'public, max-age=86400')
      .type('image/png')
      .send(await readFile(`${WEB}icons/${request.params.name}`))
  })
}, { name: 'study-page' })

import fp from 'fastify-plugin'
import { build } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const WEB = fileURLToPath(new URL('../../web/', import.meta.url))

/**
 * The study page may run only its own script and style, from this origin, and
 * talk only to this origin: stricter than the rest of the service, whose /docs
 * page needs swagger-ui's inline scripts. Cards' images and sounds are the
 * service's own /media URLs, of this origin too.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

/** Bundles the page's TypeScript (web/src) into one script, as the browser loads it. */
async function bundlePage (): Promise<string> {
  const result = await build({
    entryPoints: [`${WEB}src/main.ts`],
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
export default fp(async function studyPage (app) {
  let script: Promise<string> | null = null
  const scriptOnce = async (): Promise<string> => {
    script ??= bundlePage().catch((error: unknown) => {
      script = null
      throw error
    })
    return await script
  }

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
}, { name: 'study-page' })

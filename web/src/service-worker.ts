// The study page's service worker (served as /sw.js): it keeps the page itself (its
// HTML, script, style, manifest and icons) so that the page opens without a network
// once it has been visited. Each of those is fetched from the network first, so an
// online visit always gets the service's current page, and the copy kept is the
// latest one fetched; the copy answers only when the network does not.
//
// Nothing of the user's is kept here: API calls and media pass by untouched (the page
// keeps today's cards and the answers given offline in IndexedDB, offline-store.ts),
// so the browser's own offline state governs them as it governs any request.
//
// Typed with the few members it uses: the page's TypeScript is checked against the DOM
// library, which has no service worker scope.

interface ExtendableEvent extends Event { waitUntil: (promise: Promise<unknown>) => void }
interface FetchEvent extends ExtendableEvent { request: Request, respondWith: (response: Promise<Response>) => void }
interface WorkerScope {
  addEventListener: ((type: 'install' | 'activate', listener: (event: ExtendableEvent) => void) => void) &
  ((type: 'fetch', listener: (event: FetchEvent) => void) => void)
  skipWaiting: () => Promise<void>
  clients: { claim: () => Promise<void> }
  location: Location
}

const scope = self as unknown as WorkerScope

/** The page's files; a new name when what is kept changes shape, so an old copy is dropped. */
const SHELL_CACHE = 'flashcards-page-v1'
const SHELL = ['/', '/app.js', '/app.css', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png', '/icons/icon-maskable-512.png']

scope.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL_CACHE)
    await cache.addAll(SHELL.map((path) => new Request(path, { cache: 'reload' })))
    await scope.skipWaiting()
  })())
})

scope.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== SHELL_CACHE) await caches.delete(name)
    }
    // the page that registered it is served by it from now on, without a reload
    await scope.clients.claim()
  })())
})

scope.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (event.request.method !== 'GET' || url.origin !== scope.location.origin) return
  // any address of the page itself (/, /#/study, /?x) is the page
  const path = event.request.mode === 'navigate' ? '/' : url.pathname
  if (!SHELL.includes(path)) return
  event.respondWith(networkFirst(event.request, path))
})

async function networkFirst (request: Request, path: string): Promise<Response> {
  const cache = await caches.open(SHELL_CACHE)
  try {
    const response = await fetch(request)
    if (response.ok) await cache.put(path, response.clone())
    return response
  } catch (error) {
    const kept = await cache.match(path)
    if (kept !== undefined) return kept
    throw error
  }
}

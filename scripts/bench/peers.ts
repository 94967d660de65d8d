// The accounts a benchmark section makes and logs in, and the other users who study while
// something heavy runs (a fit, an import): each with a deck of new cards, opening their
// cards now and again, every latency kept.
import type { FastifyInstance } from 'fastify'
import { post } from './load.js'

/** the cards of each other user's deck, 20 of them today's */
const PEER_CARDS = 100
/** How often each other user opens their cards: people studying, not a load test that would take the machine from what is measured */
const PEER_EVERY_MS = 50

/** Registers `email` with `password` through the app (in process). */
export async function register (app: FastifyInstance, email: string, password: string): Promise<{ userID: string, jwtToken: string }> {
  const registered = await app.inject({ method: 'POST', url: '/api/register', payload: { email, password } })
  if (registered.statusCode !== 201) throw new Error(`register: ${registered.statusCode} ${registered.body}`)
  return registered.json()
}

/** Logs `email` in through HTTP, against the service measured: its token. */
export async function login (origin: string, email: string, password: string): Promise<string> {
  const { status, text } = await post(`${origin}/api/login`, JSON.stringify({ email, password }))
  if (status !== 200) throw new Error(`login of ${email}: ${status} ${text}`)
  return (JSON.parse(text) as { jwtToken: string }).jwtToken
}

/** Registers each of `emails`, each with a deck of PEER_CARDS new cards. */
export async function seedPeers (app: FastifyInstance, emails: readonly string[], password: string): Promise<void> {
  for (const email of emails) {
    const { jwtToken } = await register(app, email, password)
    await app.inject({ method: 'POST', url: '/api/create-folder', payload: { jwtToken, path: ['Deck'] } })
    const cards = Array.from({ length: PEER_CARDS }, (_, index) => ({ front: `front ${index}`, back: `back ${index}` }))
    const created = await app.inject({ method: 'POST', url: '/api/create-flashcard', payload: { jwtToken, folder: ['Deck'], flashcardName: 'Deck', cards } })
    if (created.statusCode !== 201) throw new Error(`create-flashcard: ${created.statusCode} ${created.body}`)
  }
}

/** Each peer sends get-today-cards every PEER_EVERY_MS (or as soon as its last answer came, if later) until `until` settles; every latency. */
export async function peersUntil (origin: string, tokens: readonly string[], until: Promise<unknown>): Promise<number[]> {
  let done = false
  until.then(() => { done = true }, () => { done = true })
  const samples: number[] = []
  await Promise.all(tokens.map(async (jwtToken) => {
    const body = JSON.stringify({ jwtToken })
    while (!done) {
      const started = performance.now()
      const { status, text } = await post(`${origin}/api/get-today-cards`, body)
      if (status !== 200) throw new Error(`get-today-cards: ${status} ${text.slice(0, 200)}`)
      const elapsed = performance.now() - started
      samples.push(elapsed)
      if (elapsed < PEER_EVERY_MS) await new Promise((resolve) => setTimeout(resolve, PEER_EVERY_MS - elapsed))
    }
  }))
  return samples
}

import type { FastifyInstance } from 'fastify'

/**
 * Everything the app's database holds, as one comparable text: equal before
 * and after a request when that request changed nothing.
 */
export async function storedState (app: FastifyInstance): Promise<string> {
  const collections = (await app.db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name).sort()
  const state: Record<string, unknown[]> = {}
  for (const name of collections) {
    state[name] = await app.db.collection(name).find({}).sort({ _id: 1 }).toArray()
  }
  return JSON.stringify(state)
}

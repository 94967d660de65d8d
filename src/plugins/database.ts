import fp from 'fastify-plugin'
import { MongoClient, type Db } from 'mongodb'
import { ensureIndexes } from '../repositories/indexes.js'
import { usersRepository, type UsersRepository } from '../repositories/users.js'
import { libraryRepository, type LibraryRepository } from '../repositories/library.js'
import { cardsRepository, type CardsRepository } from '../repositories/cards.js'
import { reviewsRepository, type ReviewsRepository } from '../repositories/reviews.js'
import { goalsRepository, type GoalsRepository } from '../repositories/goals.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    databaseClient: MongoClient
    repositories: Repositories
    /** true when the database answers a ping within `timeoutMs` */
    databaseIsReady: (timeoutMs?: number) => Promise<boolean>
  }
}

export interface Repositories {
  users: UsersRepository
  library: LibraryRepository
  cards: CardsRepository
  reviews: ReviewsRepository
  goals: GoalsRepository
}

export interface DatabaseOptions {
  /** mongodb:// URL; its path names the database (default `flashcards`) */
  url: string
}

const DEFAULT_DATABASE = 'flashcards'

/** The database named in the URL's path (`mongodb://host/name?options`), or the default. */
export function databaseName (url: string): string {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url)?.[1]
  return path === undefined || path === '' ? DEFAULT_DATABASE : decodeURIComponent(path)
}

export default fp<DatabaseOptions>(async function database (app, options) {
  const client = new MongoClient(options.url, {
    // a stopped database should turn into a quick error, not a hanging request
    serverSelectionTimeoutMS: 3000,
    connectTimeoutMS: 3000,
    appName: 'flashcard-service',
    // command events feed the Server-Timing header (plugins/timing.ts)
    monitorCommands: true
  })
  await client.connect()
  app.addHook('onClose', async () => { await client.close() })

  const db = client.db(databaseName(options.url))
  await ensureIndexes(db)

  app.decorate('db', db)
  app.decorate('databaseClient', client)
  app.decorate('repositories', {
    users: usersRepository(db),
    library: libraryRepository(db),
    cards: cardsRepository(db),
    reviews: reviewsRepository(db),
    goals: goalsRepository(db)
  })
  app.decorate('databaseIsReady', async (timeoutMs = 1000) => {
    try {
      await db.command({ ping: 1 }, { timeoutMS: timeoutMs })
      return true
    } catch {
      return false
    }
  })
}, { name: 'database' })

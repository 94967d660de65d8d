// How much each query behind an operation reads: the operation is run once in
// process, every command it sends is captured through the driver's command
// monitoring, and each read (and update) is explained as it was sent. Nothing
// is restated here, so the explain follows the repositories as they change.
import type { FastifyInstance } from 'fastify'
import type { CommandStartedEvent, Db, Document } from 'mongodb'

const EXPLAINABLE = new Set(['find', 'aggregate', 'count', 'distinct', 'update', 'delete', 'findAndModify'])
// session, cluster and write-concern fields belong to the sent command, not to what explain takes
const ENVELOPE = new Set(['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors'])

export interface ExplainSummary {
  command: string
  keysExamined: number
  docsExamined: number
  returned: number
  indexes: string[]
  collectionScan: boolean
}

/** Every executionStats object in an explain answer (a pipeline may hold one per stage, a cluster one per shard). */
function collect (node: unknown, visit: (key: string, value: unknown, parent: Document) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, visit)
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      visit(key, value, node as Document)
      collect(value, visit)
    }
  }
}

function summarise (label: string, explained: Document): ExplainSummary {
  let keysExamined = 0
  let docsExamined = 0
  let returned = 0
  const indexes = new Set<string>()
  let collectionScan = false
  collect(explained, (key, value) => {
    if (key === 'executionStats' && value !== null && typeof value === 'object') {
      const stats = value as Document
      keysExamined += Number(stats.totalKeysExamined ?? 0)
      docsExamined += Number(stats.totalDocsExamined ?? 0)
      returned += Number(stats.nReturned ?? 0)
    }
    // the plan that ran, not the ones the planner tried and rejected
    if (key === 'winningPlan') {
      collect(value, (planKey, planValue) => {
        if (planKey === 'indexName' && typeof planValue === 'string') indexes.add(planValue)
        if (planKey === 'stage' && planValue === 'COLLSCAN') collectionScan = true
      })
    }
  })
  // a pipeline the query layer could not take whole: what its last stage passed on is what the client got
  const stages = explained.stages as Document[] | undefined
  const lastStage = stages?.[stages.length - 1]
  if (lastStage !== undefined && typeof lastStage.nReturned === 'number') returned = lastStage.nReturned
  return { command: label, keysExamined, docsExamined, returned, indexes: [...indexes], collectionScan }
}

function describe (event: CommandStartedEvent): string {
  const collection = String(event.command[event.commandName] ?? '')
  return `${collection}.${event.commandName}`
}

/**
 * Runs `operation` with `body` once through `app` and explains the commands it
 * sent to `db` (executionStats). MongoDB only: FerretDB 1.24 has no executionStats.
 */
export async function explainOperation (app: FastifyInstance, db: Db, operation: string, body: object): Promise<ExplainSummary[]> {
  const sent: CommandStartedEvent[] = []
  const listen = (event: CommandStartedEvent): void => {
    if (event.databaseName === db.databaseName && EXPLAINABLE.has(event.commandName)) sent.push(event)
  }
  app.databaseClient.on('commandStarted', listen)
  try {
    const response = await app.inject({ method: 'POST', url: `/api/${operation}`, payload: body })
    if (response.statusCode !== 200) throw new Error(`${operation} answered ${response.statusCode}: ${response.body}`)
  } finally {
    app.databaseClient.off('commandStarted', listen)
  }
  const summaries: ExplainSummary[] = []
  for (const event of sent) {
    const command: Document = {}
    for (const [key, value] of Object.entries(event.command)) {
      if (!key.startsWith('$') && !ENVELOPE.has(key)) command[key] = value
    }
    const explained = await db.command({ explain: command, verbosity: 'executionStats' })
    summaries.push(summarise(describe(event), explained))
  }
  return summaries
}

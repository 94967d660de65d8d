// The ceiling the benchmark compares the service with: a bare Fastify app that
// answers POST /<operation> with response bytes captured from the real service,
// held in memory. Same framework, same body parsing, same response size, no
// database, no validation, no serialisation: no route on this machine can do
// much better. A <name>.png file is served as it is at GET /media/<name>, the
// ceiling of serving media. Usage: ceiling-server.ts <dir of <operation>.json
// and <name>.png files>; prints "listening on <origin>" once it listens on PORT
// (0: a free port).
import Fastify from 'fastify'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

const responsesDir = process.argv[2]
if (responsesDir === undefined) {
  console.error('usage: ceiling-server.ts <directory of <operation>.json response files>')
  process.exit(2)
}

const app = Fastify({ logger: false })
for (const file of await readdir(responsesDir)) {
  if (file.endsWith('.png')) {
    const bytes = await readFile(join(responsesDir, file))
    app.get(`/media/${file.slice(0, -'.png'.length)}`, async (_request, reply) => reply.type('image/png').send(bytes))
    continue
  }
  if (!file.endsWith('.json')) continue
  const body = await readFile(join(responsesDir, file))
  app.post(`/api/${file.slice(0, -'.json'.length)}`, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(body)
  })
}

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) })
console.log(`listening on ${address}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
}

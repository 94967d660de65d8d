import { MongoServerError } from 'mongodb'
import { test } from 'tap'
import { isDatabaseUnavailable } from '../../src/plugins/errors.js'

test('a query the database cancelled while stopping is an outage (503), not an internal error', async (t) => {
  const cancelled = new MongoServerError({
    ok: 0, code: 1, codeName: 'InternalError',
    errmsg: '[msg_find.go:344 handler.handleMaxTimeMSError] [collection.go:94 sqlite.(*collection).Query] context canceled'
  })
  t.ok(isDatabaseUnavailable(cancelled))
  const otherInternal = new MongoServerError({ ok: 0, code: 1, codeName: 'InternalError', errmsg: 'UNIQUE constraint failed' })
  t.notOk(isDatabaseUnavailable(otherInternal), 'other internal errors stay 500')
  t.notOk(isDatabaseUnavailable(new Error('context canceled')), 'only the database says so')
})

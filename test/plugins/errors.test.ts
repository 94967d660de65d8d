import { MongoServerError } from 'mongodb'
import { test } from 'tap'
import { isDatabaseUnavailable } from '../../src/plugins/errors.js'

test('a server shutting down or not primary is an outage (503); other server errors are internal (500)', async (t) => {
  t.ok(isDatabaseUnavailable(new MongoServerError({ ok: 0, code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutting down' })))
  t.ok(isDatabaseUnavailable(new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' })))
  t.notOk(isDatabaseUnavailable(new MongoServerError({ ok: 0, code: 1, codeName: 'InternalError', errmsg: 'context canceled' })), 'an internal error stays 500')
  t.notOk(isDatabaseUnavailable(new Error('shutting down')), 'only the database says so')
})

import { test } from 'tap'
import { idOf, isId, newId } from '../../src/domain/ids.js'

test('new ids are 39 digits, each of its own 128 random bits, across many draws of the random pool', async (t) => {
  const ids = Array.from({ length: 2000 }, () => newId())
  t.ok(ids.every((id) => /^[0-9]{39}$/.test(id) && isId(id)), 'every id is 39 digits')
  t.equal(new Set(ids).size, ids.length, 'no id twice')
  // the 128 bits spread over the digits: the leading ones differ too, not only the last
  t.ok(new Set(ids.map((id) => id.slice(0, 6))).size > ids.length * 0.9, 'the leading digits vary')
})

test('idOf gives the same id for the same text, another for another', async (t) => {
  t.equal(idOf('note type 1'), idOf('note type 1'))
  t.not(idOf('note type 1'), idOf('note type 2'))
  t.match(idOf('x'), /^[0-9]{39}$/)
})

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

// scrypt with N = 2^15 and 32 MiB per hash: slow for a guesser, still quick for one login.
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } satisfies ScryptOptions
const KEY_LENGTH = 32

function derive (password: string, salt: Buffer, cost: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, cost, (error, key) => {
      if (error !== null) reject(error)
      else resolve(key)
    })
  })
}

/** A salted slow hash, self-describing so the cost can grow later: `scrypt$N$r$p$salt$key`. */
export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false
  const expected = Buffer.from(key, 'base64')
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n), r: Number(r), p: Number(p), maxmem: COST.maxmem
  })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

// Hashing a password for an unknown email too keeps "no such account" and
// "wrong password" indistinguishable by timing.
const DUMMY_HASH = hashPassword(randomBytes(12).toString('hex'))

export async function verifyAgainstNothing (password: string): Promise<false> {
  await verifyPassword(password, await DUMMY_HASH)
  return false
}

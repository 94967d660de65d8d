import fp from 'fastify-plugin'
import { isUtf8 } from 'node:buffer'
import type { FastifyRequest } from 'fastify'
import { Refusal } from '../domain/refusals.js'

/** Labels of UTF-8 that clients send: the standard name and its common alias. */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8'])
const MAX_SHOWN_HEADER = 40

/** The charset parameters of a Content-Type header, as sent (a quoted one unquoted). */
function charsetsOf (contentType: string): string[] {
  return contentType.split(';').slice(1).flatMap((parameter) => {
    const equals = parameter.indexOf('=')
    if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') return []
    const value = parameter.slice(equals + 1).trim()
    return [/^".*"$/.test(value) ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value]
  })
}

/** A header value as a message quotes it: short, in JSON string syntax. */
function shownHeader (value: string): string {
  return JSON.stringify(value.length > MAX_SHOWN_HEADER ? `${value.slice(0, MAX_SHOWN_HEADER)}...` : value)
}

/**
 * Why the headers of an API request announce a body this service cannot
 * read as it is, or null. The body is read as UTF-8 whatever it declares,
 * and never decompressed: a body declared in another charset would be
 * stored misread (latin-1 "CafÃ©" as "Café"), and a compressed one would be
 * parsed as its raw bytes.
 */
function unreadableBody (headers: { 'content-type'?: string, 'content-encoding'?: string }): Refusal | null {
  const other = charsetsOf(headers['content-type'] ?? '').find((charset) => !UTF8_LABELS.has(charset.toLowerCase()))
  if (other !== undefined) {
    return new Refusal('unsupported_charset', `the body is declared as charset ${shownHeader(other)}, but the service reads JSON as UTF-8 only: ` +
      'encode it as UTF-8 and send Content-Type: application/json (or application/json; charset=utf-8)')
  }
  const encodings = (headers['content-encoding'] ?? '').split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '')
  if (encodings.some((coding) => coding !== 'identity')) {
    return new Refusal('unsupported_content_encoding', `the body is declared as compressed (Content-Encoding ${shownHeader(headers['content-encoding'] ?? '')}), ` +
      'but the service takes uncompressed bodies only: send the JSON as it is, without a Content-Encoding header')
  }
  return null
}

/** A JSON escape of a surrogate (\ud800-\udfff): the only way a parsed body can hold an unpaired one. */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/
/** In a `u` regex a surrogate pair is one code point, so only an unpaired half matches. */
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u
const MAX_LOCATION_LENGTH = 200

interface Visit { value: unknown, key: string, parent: Visit | null }

function locationOf (visit: Visit): string {
  const keys: string[] = []
  for (let at: Visit | null = visit; at !== null; at = at.parent) keys.push(at.key)
  const location = keys.reverse().join('.')
  return location.length > MAX_LOCATION_LENGTH ? `${location.slice(0, MAX_LOCATION_LENGTH)}...` : location
}

/**
 * Where the body holds a string (a value or a field name) with an unpaired
 * surrogate, or null. Iterative, and paths are built only for the answer,
 * since a body may nest hundreds of thousands of levels deep.
 */
function unpairedSurrogateAt (body: unknown): string | null {
  const pending: Visit[] = [{ value: body, key: 'body', parent: null }]
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { value } = visit
    if (typeof value === 'string') {
      if (UNPAIRED_SURROGATE.test(value)) return locationOf(visit)
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        if (UNPAIRED_SURROGATE.test(key)) return `${locationOf(visit)} has a field name that`
        pending.push({ value: member, key, parent: visit })
      }
    }
  }
  return null
}

interface FieldSchema {
  type?: unknown
  properties?: Record<string, FieldSchema>
  items?: FieldSchema
}

/** A value as a message names it: its kind, and a short value as it was sent. */
export function shownValue (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > MAX_SHOWN_HEADER ? `${value.slice(0, MAX_SHOWN_HEADER)}...` : value)}`
  return String(value)
}

/** A count or a number may come as a JSON number or as its plain decimal text ("20", "0.9"). */
const NUMBER_TEXT: Record<string, RegExp> = { integer: /^-?[0-9]+$/, number: /^-?[0-9]+(\.[0-9]+)?$/ }

/**
 * The first value, along the body's schema, whose JSON type Ajv would coerce
 * although it is a mistake: null, a boolean or a number for a string (`false`
 * as a folder name "false"), null or a boolean for a number (`null` as 0
 * reviews a day). Ajv's coerceTypes has no half-way setting, and it is kept
 * on for what the design allows: a count as a JSON number or a digit string.
 * The walk follows the schema, so its depth is the schema's, not the body's.
 */
function mistypedField (value: unknown, schema: FieldSchema | undefined, where: string): string | null {
  if (value === undefined || schema === undefined) return null
  const { type } = schema
  if (type === 'string') return typeof value === 'string' ? null : `${where} must be a string, not ${shownValue(value)}: send the text in double quotes`
  if (type === 'integer' || type === 'number') {
    const fits = typeof value === 'number' || (typeof value === 'string' && NUMBER_TEXT[type]?.test(value) === true)
    if (fits) return null
    return type === 'integer'
      ? `${where} must be a whole number, not ${shownValue(value)}: send it as 20 or "20"`
      : `${where} must be a number, not ${shownValue(value)}: send it as 0.9 or "0.9"`
  }
  if (type === 'object' && typeof value === 'object' && value !== null && !Array.isArray(value) && schema.properties !== undefined) {
    for (const [name, member] of Object.entries(schema.properties)) {
      const problem = Object.hasOwn(value, name) ? mistypedField((value as Record<string, unknown>)[name], member, `${where}.${name}`) : null
      if (problem !== null) return problem
    }
  }
  if (type === 'array' && Array.isArray(value) && schema.items !== undefined) {
    for (const [index, item] of value.entries()) {
      const problem = mistypedField(item, schema.items, `${where}.${index}`)
      if (problem !== null) return problem
    }
  }
  return null
}

/** Non-ASCII text, or an escape that may stand for some: only then can a string need normalising. */
const MAYBE_NOT_ASCII = /[\u0080-\uffff]|\\u/

/** Every string value of the body, NFC-normalised in place (field names are the schema's, left alone). */
function normaliseStrings (body: unknown): void {
  const pending: unknown[] = [body]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    const container = value as Record<string, unknown>
    for (const key of Object.keys(container)) {
      const item = container[key]
      if (typeof item === 'string') container[key] = item.normalize('NFC')
      else if (typeof item === 'object' && item !== null) pending.push(item)
    }
  }
}

/**
 * JSON bodies, read by Fastify's own parser (prototype poisoning refused) and
 * only as well-formed text. Strings are stored as UTF-8, where invalid bytes
 * and unpaired surrogates ("\ud800") would silently turn into U+FFFD: names
 * would not round-trip, "a\ud800" and "a\udc00" would clash as one name, and
 * two such passwords would hash alike. Such a body is answered 400 instead,
 * as is one with a mistyped field that validation would coerce. Every text
 * is stored NFC-normalised. A body declared in a charset other than UTF-8,
 * or compressed, is answered 415 before it is read.
 */
export default fp(async function jsonBody (app) {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw: Buffer, done) => {
    if (!isUtf8(raw)) {
      done(new Refusal('invalid_text', 'the body is not valid UTF-8: send the JSON text encoded as UTF-8'), undefined)
      return
    }
    const text = raw.toString('utf8')
    parseJson(request, text, (error, body) => {
      if (error !== null) return done(error, undefined)
      const where = ESCAPED_SURROGATE.test(text) ? unpairedSurrogateAt(body) : null
      if (where !== null) {
        return done(new Refusal('invalid_text', `${where} holds an unpaired surrogate (a \\ud800-\\udfff escape without its other half), ` +
          'which is not text: send whole characters'), undefined)
      }
      // one spelling of each text: "café" typed as é or as e + combining accent is one name
      if (MAYBE_NOT_ASCII.test(text)) normaliseStrings(body)
      done(null, body)
    })
  })

  // preParsing: before the body is read, but after the security headers are set (onRequest), so the 415 has them too
  app.addHook('preParsing', async (request: FastifyRequest) => {
    if (!request.url.startsWith('/api/')) return
    const refusal = unreadableBody(request.headers)
    if (refusal !== null) throw refusal
  })

  // before Ajv validates (and coerces) the body against the route's schema
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const problem = mistypedField(request.body, request.routeOptions.schema?.body as FieldSchema | undefined, 'body')
    if (problem !== null) throw new Refusal('invalid_field', problem)
  })
}, { name: 'json-body' })

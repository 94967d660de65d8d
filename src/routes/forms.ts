import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Multipart } from '@fastify/multipart'
import { invalidToken, Refusal } from '../domain/refusals.js'
import type { UserDocument } from '../repositories/users.js'

/** How an operation that takes multipart/form-data describes its form to a client that sent it wrong. */
export interface FormShape {
  /** what follows the token: "then ..." of the sentence every refusal of the form ends with */
  after: string
  /** what a form past the reader's part limits holds too much of */
  tooMuch: string
  /** the operation's own refusal of a reader's error code (a file past its size), if it has one */
  own?: (code: string) => Refusal | undefined
}

/**
 * The reading of a form that begins with its jwtToken, shared by every
 * upload: refusals that say what the form should be, the reader's errors as
 * those refusals, and `open`, which authenticates the token before any
 * other part is read, so that the account's limits apply before a byte of a
 * file is stored.
 */
export function formReader (shape: FormShape) {
  function invalidForm (problem: string): Refusal {
    return new Refusal('invalid_upload', `${problem}: send multipart/form-data with the field jwtToken first, then ${shape.after}`)
  }

  /** What the multipart reader raises, as a refusal: a form that breaks the limits or cannot be read is the client's. */
  function formRefusal (error: unknown): unknown {
    if (error instanceof Refusal || !(error instanceof Error)) return error
    const code = (error as { code?: string }).code ?? ''
    if (['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'].includes(code)) return invalidForm(`the form holds more ${shape.tooMuch}`)
    if (code === 'FST_PROTO_VIOLATION') return invalidForm('the form has a part named after a property of every object')
    const own = shape.own?.(code)
    if (own !== undefined) return own
    // busboy's own: a form cut short, a malformed part header, no boundary
    if (code === '' || code.startsWith('FST_')) return invalidForm(`the form could not be read (${error.message})`)
    return error
  }

  /** The form's parts one at a time (the reader's errors as refusals), after its token is checked and the account admitted. */
  async function open (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<{ account: UserDocument, nextPart: () => Promise<IteratorResult<Multipart>> }> {
    const parts = request.parts()[Symbol.asyncIterator]()
    const nextPart = async (): Promise<IteratorResult<Multipart>> => {
      try {
        return await parts.next()
      } catch (error) {
        throw formRefusal(error)
      }
    }
    const token = await nextPart()
    if (token.done === true || token.value.type !== 'field' || token.value.fieldname !== 'jwtToken') throw invalidForm('the form does not begin with the field jwtToken')
    const account = await app.authenticateAndAdmit(token.value.value, reply)
    if (account === null) throw invalidToken()
    return { account, nextPart }
  }

  return { invalidForm, formRefusal, open }
}

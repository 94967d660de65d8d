/** Why the domain refuses an edit; the HTTP layer turns each into its status. */
export type Refusal = 'invalid' | 'not-found' | 'conflict'

/** An edit the rules refuse, with a message the client can act on. */
export class DomainError extends Error {
  override name = 'DomainError'
  constructor (readonly refusal: Refusal, message: string) { super(message) }
}

import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken } from './common.js'

/** The form upload-media takes, for the OpenAPI document: it is read as it arrives, not validated as a whole. */
export const UploadMediaForm = Type.Object({
  jwtToken: JwtToken,
  file: Type.String({ format: 'binary', description: 'the image or sound; its name and Content-Type are not read: its bytes tell its type' })
}, { description: 'multipart/form-data with two parts, in this order: the field jwtToken, then the file (at most 20 MiB)' })

export const UploadedMedia = Type.Object({
  mediaID: Id,
  url: Type.String({ description: 'a signed URL of the file, valid for one to two hours; a card read gives a fresh one' }),
  contentType: Type.String({ description: 'the type its bytes showed, which it is served with: image/png, image/apng, image/jpeg, image/gif, image/webp, audio/mpeg, audio/ogg, audio/mp4 or audio/wav' }),
  bytes: Type.String({ description: 'its size in bytes' })
})
export type UploadedMedia = Static<typeof UploadedMedia>

export const MediaParams = Type.Object({ mediaID: Type.String({ maxLength: 100, description: 'the mediaID' }) })

/** The parts of a signed URL; each is checked against the signature (403 when not as signed), not by the schema. */
export const MediaLink = Type.Object({
  u: Type.Optional(Type.String({ maxLength: 100, description: 'the userID the URL was signed for' })),
  e: Type.Optional(Type.String({ maxLength: 20, description: 'its expiry, in seconds since 1970' })),
  s: Type.Optional(Type.String({ maxLength: 100, description: 'its signature' }))
})

import { Type, type Static } from '@sinclair/typebox'
import { LINK_TOKEN_LENGTH, MIN_PASSWORD_LENGTH } from '../domain/limits.js'
import { JwtToken, StringEnum } from './common.js'
import { NAME_PATTERN } from '../domain/names.js'

export const EMAIL_PATTERN = '^\\s*[^\\s@\\u0000-\\u001f\\u007f-\\u009f]+@[^\\s@\\u0000-\\u001f\\u007f-\\u009f]+\\s*$'

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  // no control characters (beyond the surrounding white space that is trimmed)
  pattern: EMAIL_PATTERN,
  description: 'email address, case-insensitive'
})

export const RegisterBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024, description: `at least ${MIN_PASSWORD_LENGTH} characters` }),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN, description: 'no control characters' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name, e.g. Europe/Paris (default UTC)' }))
}, { additionalProperties: false })
export type RegisterBody = Static<typeof RegisterBody>

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 })
}, { additionalProperties: false })
export type LoginBody = Static<typeof LoginBody>

export const Session = Type.Object({
  userID: Type.String(),
  jwtToken: Type.String()
})

export const TokenBody = Type.Object({ jwtToken: JwtToken })

const BooleanText = (description: string) => StringEnum(['true', 'false'] as const, { description })

export const UserProfile = Type.Object({
  userID: Type.String(),
  email: Type.String(),
  displayName: Type.String(),
  timezone: Type.String(),
  dayStartHour: Type.String(),
  newCardsPerDay: Type.String(),
  reviewsPerDay: Type.String(),
  desiredRetention: Type.String(),
  buryNewSiblings: BooleanText('answering a card buries its new siblings (the other cards of its note) until the user\'s next day'),
  buryReviewSiblings: BooleanText('answering a card buries its review siblings until the user\'s next day'),
  buryInterdayLearningSiblings: BooleanText('answering a card buries its siblings on a learning step of a day or more until the user\'s next day'),
  total_xp: Type.String(),
  createdAt: Type.String({ description: 'ISO-8601 UTC instant' })
})

export const MIN_DESIRED_RETENTION = 0.7
export const MAX_DESIRED_RETENTION = 0.99

/** Every setting optional, at least one given; counts as JSON integers or digit strings. */
export const UpdateSettingsBody = Type.Object({
  jwtToken: JwtToken,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN, description: 'no control characters' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name, e.g. Europe/Paris' })),
  dayStartHour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23, description: 'the hour (0-23) the user\'s day turns over' })),
  newCardsPerDay: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999, description: 'new cards shown a day, 0-9999' })),
  reviewsPerDay: Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999, description: 'reviews shown a day, 0-99999' })),
  desiredRetention: Type.Optional(Type.Number({
    minimum: MIN_DESIRED_RETENTION,
    maximum: MAX_DESIRED_RETENTION,
    description: `FSRS desired retention, ${MIN_DESIRED_RETENTION.toFixed(2)}-${MAX_DESIRED_RETENTION}, at most two decimals`
  })),
  buryNewSiblings: Type.Optional(Type.Boolean({ description: 'answering a card buries its new siblings until the next day' })),
  buryReviewSiblings: Type.Optional(Type.Boolean({ description: 'answering a card buries its review siblings until the next day' })),
  buryInterdayLearningSiblings: Type.Optional(Type.Boolean({ description: 'answering a card buries its interday learning siblings until the next day' }))
}, { additionalProperties: false })
export type UpdateSettingsBody = Static<typeof UpdateSettingsBody>

export const DeleteAccountBody = Type.Object({
  jwtToken: JwtToken,
  password: Type.String({ minLength: 1, maxLength: 1024, description: 'the account\'s password, asked again' })
}, { additionalProperties: false })

export const DeletedAccount = Type.Object({ deleted: Type.Literal('true') })

export const ChangePasswordBody = Type.Object({
  jwtToken: JwtToken,
  password: Type.String({ minLength: 1, maxLength: 1024, description: 'the current password' }),
  newPassword: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024, description: `at least ${MIN_PASSWORD_LENGTH} characters` })
}, { additionalProperties: false })
export type ChangePasswordBody = Static<typeof ChangePasswordBody>

export const LoggedOut = Type.Object({ loggedOut: Type.Literal('true') })

/** A link's token, as the mailed link carries it after `token=` (domain/account-links.ts). */
export const LINK_TOKEN_PATTERN = `^[A-Za-z0-9_-]{${LINK_TOKEN_LENGTH}}$`
const LinkToken = Type.String({ pattern: LINK_TOKEN_PATTERN, description: 'the token of the link the service mailed: what follows token= in it' })

export const RequestPasswordResetBody = Type.Object({ email: Email }, { additionalProperties: false })

export const ResetRequested = Type.Object({
  requested: Type.Literal('true', { description: 'the same answer whether or not an account has this email; a link is mailed if one does' })
})

export const ResetPasswordBody = Type.Object({
  resetToken: LinkToken,
  newPassword: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024, description: `at least ${MIN_PASSWORD_LENGTH} characters` })
}, { additionalProperties: false })

export const ChangeEmailBody = Type.Object({
  jwtToken: JwtToken,
  password: Type.String({ minLength: 1, maxLength: 1024, description: 'the account\'s password, asked again' }),
  newEmail: Email
}, { additionalProperties: false })

export const EmailChangeRequested = Type.Object({
  newEmail: Type.String({ description: 'the address the link was mailed to, as the account would keep it (trimmed, lower case)' })
})

export const ConfirmEmailChangeBody = Type.Object({ token: LinkToken }, { additionalProperties: false })

export const EmailChanged = Type.Object({
  userID: Type.String(),
  email: Type.String({ description: 'the account\'s email from now on' })
})

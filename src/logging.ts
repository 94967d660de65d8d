import type { LoggerOptions } from 'pino'

/** Redacted wherever they could appear in a log line. */
export const LOG_REDACTIONS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.body.password',
  'req.body.jwtToken',
  'body.password',
  'body.jwtToken',
  '*.password',
  '*.jwtToken',
  '*.passwordHash',
  '*.newPassword',
  // the tokens of mailed links (reset-password, confirm-email-change)
  '*.resetToken',
  '*.token'
]

/** pino options: pretty lines for a person at a terminal, JSON for everything else. */
export function loggerOptions (level: string, pretty: boolean, stream?: NodeJS.WritableStream): LoggerOptions {
  return {
    level,
    redact: { paths: LOG_REDACTIONS, censor: '[redacted]' },
    ...(stream !== undefined ? { stream } : {}),
    ...(pretty && stream === undefined ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } } : {})
  } as LoggerOptions
}

import fp from 'fastify-plugin'
import { createTransport } from 'nodemailer'
import type { MailMessage } from '../domain/account-links.js'
import type { Outbox } from '../services/context.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** mail, sent once the request that posts it has been answered (see Outbox) */
    outbox: Outbox
  }
}

export interface MailOptions {
  /** smtp://user:pass@host:port, or smtps:// for TLS from the start; without it, each mail is written to the log instead */
  smtpUrl?: string
  /** the sender of every mail */
  from: string
}

/** The mail server's longest silence at each step: one that hangs holds up its mail, never a request, and not closing for long. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/**
 * The service's mail: through the SMTP server of SMTP_URL (nodemailer), or,
 * with none, written to the log, so that a development install still shows
 * the links it would mail. Mail is sent off the request path (the outbox),
 * and a mail that cannot be made or sent is logged as an error: the user
 * asks again.
 */
export default fp<MailOptions>(async function mail (app, options) {
  const transport = options.smtpUrl === undefined
    ? null
    : createTransport({ url: options.smtpUrl, ...SMTP_TIMEOUTS }, { from: options.from })

  async function send (message: MailMessage): Promise<void> {
    if (transport === null) {
      app.log.info({ mailTo: message.to, subject: message.subject }, `no SMTP_URL is set, so this mail was not sent; it reads:\n${message.text}`)
      return
    }
    await transport.sendMail({ to: message.to, subject: message.subject, text: message.text })
  }

  /** mail being made or sent: closing waits for it */
  const pending = new Set<Promise<void>>()
  app.decorate('outbox', {
    post (compose: () => Promise<MailMessage | null>): void {
      // setImmediate: not before the request that posts it is answered
      const task: Promise<void> = new Promise<void>((resolve) => { setImmediate(resolve) })
        .then(compose)
        .then(async (message) => { if (message !== null) await send(message) })
        .catch((err: unknown) => { app.log.error({ err }, 'a mail could not be made or sent') })
        .finally(() => { pending.delete(task) })
      pending.add(task)
    }
  })

  // before the database closes (hooks run in the reverse order of the plugins), since composing a mail reads it
  app.addHook('onClose', async () => {
    await Promise.all(pending)
    transport?.close()
  })
}, { name: 'mail', dependencies: ['database'] })

// A real SMTP server on this machine (smtp-server), for the tests of what the service mails:
// the service sends to it through SMTP_URL as it would to any other, and the test reads
// what arrived.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** A mail as the SMTP server received it, its text decoded. */
export interface ReceivedMail {
  /** the envelope's recipients */
  to: string[]
  from: string
  subject: string
  text: string
}

export interface Mailbox {
  /** smtp://user:pass@127.0.0.1:<port>, for the service's configuration */
  url: string
  /** every mail received, in order */
  mails: ReceivedMail[]
  /** connections the service opened so far */
  connections: () => number
  /** the mail after the `seen` first ones, once it has arrived */
  mailAfter: (seen: number) => Promise<ReceivedMail>
  /** holds every connection at its start until the function returned is called */
  hold: () => () => void
}

interface Teardown { teardown: (fn: () => unknown) => void }

export const MAIL_USER = 'flashcards'
export const MAIL_PASSWORD = 'mail server password'

/** Starts an SMTP server on 127.0.0.1 that takes mail from MAIL_USER alone; stopped when the test ends. */
export async function startMailbox (t: Teardown): Promise<Mailbox> {
  const mails: ReceivedMail[] = []
  const waiting = new Set<() => void>()
  let connections = 0
  let held: Promise<void> | null = null

  const server = new SMTPServer({
    // the service's mail server may be reached in plain text; the test's has no certificate
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onConnect (_session, callback) {
      connections += 1
      if (held === null) callback()
      else void held.then(() => { callback() })
    },
    onAuth (auth, _session, callback) {
      if (auth.username === MAIL_USER && auth.password === MAIL_PASSWORD) callback(null, { user: auth.username })
      else callback(new Error('wrong user or password'))
    },
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address
        mails.push({ ...readMail(Buffer.concat(chunks).toString('utf8')), from, to: session.envelope.rcptTo.map((recipient) => recipient.address) })
        for (const wake of waiting) wake()
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  t.teardown(async () => { await new Promise<void>((resolve) => { server.close(() => { resolve() }) }) })
  const { port } = server.server.address() as AddressInfo

  return {
    url: `smtp://${MAIL_USER}:${encodeURIComponent(MAIL_PASSWORD)}@127.0.0.1:${port}`,
    mails,
    connections: () => connections,
    async mailAfter (seen: number): Promise<ReceivedMail> {
      while (mails.length <= seen) {
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiting.delete(wake)
            resolve()
          }
          waiting.add(wake)
        })
      }
      return mails[seen] as ReceivedMail
    },
    hold () {
      let release: () => void = () => {}
      held = new Promise<void>((resolve) => { release = resolve })
      return () => {
        held = null
        release()
      }
    }
  }
}

/** The subject and plain text of a raw single-part mail, decoded from its transfer encoding. */
function readMail (raw: string): { subject: string, text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const header = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? ''
  const encoding = header('Content-Transfer-Encoding').toLowerCase()
  const text = encoding === 'base64'
    ? Buffer.from(body, 'base64').toString('utf8')
    : encoding === 'quoted-printable'
      ? Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')
      : body
  return { subject: header('Subject'), text: text.replace(/\r\n/g, '\n') }
}

/** The link a mail carries and its token. */
export function linkIn (mail: ReceivedMail): { link: string, token: string } {
  const found = /(https?:\/\/\S+[?&]token=([A-Za-z0-9_-]+))/.exec(mail.text)
  if (found === null) throw new Error(`no link in the mail: ${mail.text}`)
  return { link: found[1] as string, token: found[2] as string }
}

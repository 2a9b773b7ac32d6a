import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface ReceivedMail {
  readonly to: string[]
  readonly data: string
}

/** A real SMTP server on loopback that keeps every message it receives. */
export const smtpServer = async (t: Test) => {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, session, callback) {
      let data = ''
      stream.on('data', (chunk: Buffer) => { data += chunk.toString() })
      stream.on('end', () => { received.push({ to: session.envelope.rcptTo.map((r) => r.address), data }); callback() })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, received }
}

/** A message's body with quoted-printable soft line breaks joined back. */
export const mailBody = (mail: ReceivedMail): string => mail.data.replace(/=\r\n/g, '')

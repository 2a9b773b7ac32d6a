import nodemailer from 'nodemailer'

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

/** Sends mail; what a send cannot deliver rejects, for the caller to log. */
export interface Mailer {
  send(mail: Mail): Promise<void>
  close(): void
}

/** SMTP through nodemailer, from `HEDGELOG_SMTP_URL` (`smtp://user:pass@host:587`, `smtps://…`), with bounded waits. */
export const smtpMailer = (url: string, from: string): Mailer => {
  const transport = nodemailer.createTransport(url, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })
  return {
    send: async (mail) => { await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text }) },
    close: () => transport.close(),
  }
}

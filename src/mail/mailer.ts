import nodemailer from 'nodemailer'

/** A file sent with a message; with a `cid`, the HTML body shows it inline as `<img src="cid:…">`. */
export interface MailAttachment {
  readonly filename: string
  readonly content: Buffer
  readonly contentType: string
  readonly cid?: string
}

export interface Mail {
  readonly to: string
  readonly subject: string
  /** The plain-text body; with `html`, the alternative for clients that show no HTML. */
  readonly text: string
  readonly html?: string
  readonly attachments?: readonly MailAttachment[]
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
    send: async (mail) => {
      await transport.sendMail({
        from, to: mail.to, subject: mail.subject, text: mail.text,
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        ...(mail.attachments && mail.attachments.length > 0
          ? { attachments: mail.attachments.map((file) => ({ filename: file.filename, content: file.content, contentType: file.contentType, ...(file.cid ? { cid: file.cid } : {}) })) }
          : {}),
      })
    },
    close: () => transport.close(),
  }
}

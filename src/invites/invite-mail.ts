import type { Mail } from '../mail/mailer.js'

export interface InviteMailFacts {
  readonly inviteId: string
  readonly email: string
  readonly firstName: string
  readonly organizationName: string
  readonly inviterName: string
  readonly message: string | null
  readonly expiresAt: string
}

/**
 * The invitation e-mail. Hedgelog has no sign-up page, so it names the command that accepts the
 * invite and issues the new member's first personal API key.
 */
export const inviteMail = (facts: InviteMailFacts): Mail => ({
  to: facts.email,
  subject: `${facts.inviterName} invited you to join ${facts.organizationName} on Hedgelog`,
  text: [
    `${facts.inviterName} invited you to join ${facts.organizationName} on Hedgelog.`,
    ...(facts.message ? ['', facts.message] : []),
    '',
    'To accept, ask the operator of this Hedgelog installation to run:',
    '',
    `  npx hedgelog invites accept ${facts.inviteId} --first-name ${JSON.stringify(facts.firstName || 'Your name')}`,
    '',
    'It creates your account and prints your first personal API key.',
    `The invite expires at ${facts.expiresAt}.`,
  ].join('\n'),
})

import { createHash } from 'node:crypto'
import { WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog } from '../eventlog/port.js'
import { ValidationFailed } from '../kernel/errors.js'
import { eventMetadata, handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { newEventId, randomToken } from '../kernel/ids.js'
import { userDecider } from './deciders.js'
import { userStream, type UserCreated } from './events.js'

/** Claims an e-mail address for one user; the stream exists once per address, so two users never share one. */
export const USER_EMAIL_CLAIMED = 'UserEmailClaimed'
export type UserEmailClaimed = { type: typeof USER_EMAIL_CLAIMED; data: { email: string; userUuid: string; at: string } }

export const normalEmail = (email: string): string => email.trim().toLowerCase()

/** The claim stream's id is a hash, so any address makes a well-formed stream name. */
export const emailStream = (email: string): string => `useremail-${createHash('sha256').update(normalEmail(email)).digest('hex').slice(0, 40)}`

export interface NewUser {
  readonly userUuid: string
  readonly userId: number
  readonly organizationId: string
  readonly email: string
  readonly firstName: string
  readonly membershipLevel: number
}

export const emailOwner = async (log: EventLog, email: string): Promise<string | null> => {
  const { events } = await readAggregate<UserEmailClaimed>(log, emailStream(email))
  return events[0]?.data.userUuid ?? null
}

/** Refused when another user has the address; claiming it again for the same user is a no-op. */
const claimEmail = async (log: EventLog, email: string, userUuid: string, context: CommandContext): Promise<void> => {
  try {
    await log.append(emailStream(email), [{
      id: newEventId(), type: USER_EMAIL_CLAIMED, data: { email: normalEmail(email), userUuid, at: context.now }, metadata: eventMetadata(context),
    }], { expectedRevision: 'no_stream' })
  } catch (error) {
    if (!(error instanceof WrongExpectedVersion)) throw error
    if (await emailOwner(log, email) !== userUuid) throw new ValidationFailed('A user with this email address already exists.', 'email')
  }
}

/** Creates a user once: the address is claimed first, then the user recorded, so a retry with the same ids completes a run cut short. */
export const createUser = async (log: EventLog, user: NewUser, context: CommandContext): Promise<void> => {
  await claimEmail(log, user.email, user.userUuid, context)
  await handleCommand(log, userDecider, userStream(user.userUuid), {
    data: {
      userUuid: user.userUuid, userId: user.userId, organizationId: user.organizationId, distinctId: randomToken('', 24),
      email: normalEmail(user.email), firstName: user.firstName, lastName: '', membershipLevel: user.membershipLevel, at: context.now,
    },
  }, context)
}

export const readUser = async (log: EventLog, userUuid: string): Promise<UserCreated['data'] | null> => {
  const { events } = await readAggregate<UserCreated>(log, userStream(userUuid))
  return events.find((event) => event.type === 'UserCreated')?.data ?? null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A user named by uuid or e-mail address, read from the log (so the CLI needs no running projections). */
export const findUser = async (log: EventLog, emailOrUuid: string): Promise<UserCreated['data'] | null> => {
  if (UUID.test(emailOrUuid)) return readUser(log, emailOrUuid.toLowerCase())
  const owner = await emailOwner(log, emailOrUuid)
  return owner === null ? null : readUser(log, owner)
}

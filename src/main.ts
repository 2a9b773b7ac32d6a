#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --v8-pool-size=2
import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { parseArgs } from 'node:util'
import { allocatorWarning, glibcVersion } from './cli/allocator.js'
import { fixMmapThreshold, freeMemoryProblem } from './kernel/free-memory.js'
import { initialize, issueApiKey } from './accounts/commands.js'
import { invites, keys, orgs } from './cli/accounts.js'
import { UsageError, cliContext, lines, print } from './cli/usage.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { DomainError } from './kernel/errors.js'
import { ROLES, startService, type Role } from './service.js'
import { openEventLog, openStorage, StorageError } from './storage.js'
import { listQuarantined, retryQuarantined } from './cli/quarantine.js'
import { auditingCommands } from './cli/auditing.js'
import { CliRefused } from './kernel/cli-refused.js'
import { Stopped } from './cli/progress.js'
import { MalformedLine, UnknownEnvironment } from './migration/import.js'
import { removeScratchLeftovers, scratchRoot } from './cli/scratch-dirs.js'

const USAGE = `usage: hedgelog <command>

  serve [--roles api,ingest,projector,scheduler]   run the service (all roles by default)
  init [--json]                                    create the organization, user, project and a key, once
  orgs create --name N [--email E] [--json]        create another organization with its owner, project, environment and a key
  invites accept <invite id> --first-name F [--json]
                                                   create the invited user at the invited level, with a first key
  keys create --scopes a:read,b:write [--user EMAIL|UUID] [--label L] [--json]
                                                   issue a personal API key (for the init user unless --user; '*' for all)
  keys create --unscoped [--user EMAIL|UUID] [--label L] [--json]
                                                   issue a legacy key without scopes (PostHog lets it do anything)
  keys revoke <key id> [--user EMAIL|UUID]         revoke a personal API key (checked to be that user's)
  quarantine list [--json]                         events the projections skipped, and why
  quarantine retry [--projection NAME]             rebuild the projections that skipped events (after a fix)

  audit <stream | dashboard ID | subscription ID | flag ID | survey ID | environment ID | person DISTINCT_ID>
        [--at ISO-TIME|POSITION] [--environment ID] [--json]
                                                   a resource's history, oldest first; with --at, its state then
  rebuild [--projection NAME] [--until POSITION|ISO-TIME] [--into DIR] [--json]
                                                   replay the log into fresh read models; print counts and digests
  verify [--projection NAME] [--json]              replay beside the live read models; exit 1 naming the first difference
  verify --seals [--json]                          recompute every seal; exit 1 naming the first changed event
  seal [--json]                                    append a LogSealed event chaining every event before it
  export --environment ID [--since X] [--until X]  ingested events as NDJSON on stdout, in log order
  import --environment ID [--chunk-lines N] FILE|-  NDJSON through the historical-migration path; rerun to resume

environment: PORT, HOST, HEDGELOG_DATA_DIR, HEDGELOG_EVENTSTORE_URL, HEDGELOG_MONGO_URL, HEDGELOG_STORE_WAIT_MS, LOG_LEVEL
             (docs/operations.md lists the timeouts)`


const serve = async (config: Config, args: string[]): Promise<void> => {
  const { values } = parseArgs({ args, options: { roles: { type: 'string', default: ROLES.join(',') } } })
  const roles = values.roles.split(',').map((r) => r.trim()).filter((r) => r !== '')
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r))
  if (roles.length === 0 || unknown.length > 0) throw new UsageError(`unknown role: ${unknown.join(', ') || '(none)'}; roles are ${ROLES.join(', ')}`)
  const logger = pino({ level: config.LOG_LEVEL })
  const allocator = allocatorWarning(process.env, glibcVersion, fixMmapThreshold)
  if (allocator !== null) logger.warn(allocator)
  const freeMemory = freeMemoryProblem()
  if (freeMemory !== null) logger.warn(freeMemory)
  const service = await startService(config, roles as Role[], logger)
  // After start-up, whose checks name an unusable data directory; tidying it never stops the service.
  try {
    const leftovers = removeScratchLeftovers(scratchRoot(config.dataDir))
    if (leftovers.length > 0) logger.info({ removed: leftovers }, 'removed the scratch space of replays that were stopped before they could remove it')
  } catch (error) {
    logger.warn({ err: error }, 'could not remove the scratch space of stopped replays')
  }
  logger.info({ roles, address: service.address, eventLog: service.log.kind, readStore: service.store.kind }, 'hedgelog started')
  void service.failed.then((error) => {
    process.stderr.write(`hedgelog: ${error instanceof StorageError || error.name === 'NotAReplicaSet' ? error.message : error.stack ?? error.message}\n`)
    process.exit(1)
  })
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error')
    else logger.info({ signal }, 'shutting down')
    await service.close()
  })
}

const withLog = async <T>(config: Config, work: (log: Awaited<ReturnType<typeof openEventLog>>) => Promise<T>): Promise<T> => {
  const log = await openEventLog(config)
  try {
    return await work(log)
  } finally {
    await log.close()
  }
}

const init = async (config: Config, args: string[]): Promise<void> => {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } })
  await withLog(config, async (log) => {
    const context = cliContext()
    const installation = await initialize(log, context)
    const key = await issueApiKey(log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'hedgelog init' }, context)
    const result = { ...installation, personal_api_key: key.value, personal_api_key_id: key.id }
    print(values.json, result, lines(result))
  })
}

const quarantine = async (config: Config, args: string[]): Promise<void> => {
  const [action, ...rest] = args
  const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean', default: false }, projection: { type: 'string' } } })
  if (action !== 'list' && action !== 'retry') throw new UsageError(USAGE)
  const { log, store } = await openStorage(config)
  try {
    if (action === 'list') {
      const records = await listQuarantined(store)
      if (values.json) process.stdout.write(`${JSON.stringify(records)}\n`)
      else if (records.length === 0) process.stdout.write('nothing is quarantined\n')
      else for (const q of records) process.stdout.write(`${q.projection}\t${q.position}${q.part === null ? '' : `#${q.part}`}\t${q.event_type}\t${q.stream_id}@${q.revision}\t${q.error}\n`)
      return
    }
    const names = await retryQuarantined(log, store, values.projection)
    process.stdout.write(names.length === 0 ? 'nothing to retry\n' : `rebuilding ${names.join(', ')}: the running projector switches to each new build once it has caught up\n`)
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message)
    throw error
  } finally {
    await log.close()
    await store.close()
  }
}

const main = async (argv: string[]): Promise<void> => {
  const [command = 'serve', ...args] = argv
  if (command === '--help' || command === 'help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const config = loadConfig(process.env)
  switch (command) {
    case 'serve': return serve(config, args)
    case 'init': return init(config, args)
    case 'keys': return withLog(config, (log) => keys(log, args))
    case 'orgs': return withLog(config, (log) => orgs(log, args))
    case 'invites': return withLog(config, (log) => invites(log, args))
    case 'quarantine': return quarantine(config, args)
    default: {
      if (!Object.hasOwn(auditingCommands, command)) throw new UsageError(USAGE)
      process.exitCode = await auditingCommands[command]!(config, args)
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof Stopped) {
    process.stderr.write(`hedgelog: ${error.message}\n`)
    process.exit(130)
  }
  const plain = [ConfigError, UsageError, DomainError, StorageError, CliRefused, MalformedLine, UnknownEnvironment]
  if (plain.some((kind) => error instanceof kind)) {
    process.stderr.write(`hedgelog: ${(error as Error).message}\n`)
  } else if (error instanceof Error && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`hedgelog: ${error.message}\n${USAGE}\n`)
  } else {
    process.stderr.write(`hedgelog: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  }
  process.exit(1)
})

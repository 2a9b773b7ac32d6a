import t from 'tap'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { ALLOCATOR_VALUE, ALLOCATOR_VARIABLE, GC_HELPERS_FLAG, allocatorWarning, glibcVersion } from '../../src/cli/allocator.js'
import { MAIN, cliCommand, exited, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

const ROOT = new URL('../../../', import.meta.url)
const environOf = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
const { [ALLOCATOR_VARIABLE]: _inherited, ...plain } = process.env

t.test('the warning is given on glibc only, and only when the variable is missing', async (t) => {
  t.match(allocatorWarning({}, () => '2.36'), new RegExp(`^${ALLOCATOR_VARIABLE} is not set: .*${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE}$`))
  t.equal(allocatorWarning({ [ALLOCATOR_VARIABLE]: ALLOCATOR_VALUE }, () => '2.36'), null)
  t.equal(allocatorWarning({}, () => undefined), null, 'not on musl, macOS or Windows, where the variable means nothing')
})

t.test('the launcher is the one line that sets it and the GC helpers: main.js\'s #! line, which npm start and the image run', async (t) => {
  const main = readFileSync(MAIN, 'utf8').split('\n')[0]
  t.equal(main, `#!/usr/bin/env -S ${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE} node ${GC_HELPERS_FLAG}`)
  const scripts = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts['start'], './dist/src/main.js serve', 'npm start runs the launcher, not node on the file')
  t.match(readFileSync(new URL('Dockerfile', ROOT), 'utf8'), /^ENTRYPOINT \["\/app\/dist\/src\/main\.js"\]$/m, 'and so does the image')
})

t.test('a service started through the launcher runs with the variable set and warns of nothing', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const server = await startServer([], { HEDGELOG_DATA_DIR: tempDir(t) })
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const environ = environOf(server.child.pid!)
  t.ok(environ.includes(`${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE}`), `the service's environment has ${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE}`)
  t.notOk(environ.some((entry) => entry.startsWith('NODE_OPTIONS=')), 'and not the test runner\'s module hooks')
  t.ok(readFileSync(`/proc/${server.child.pid!}/cmdline`, 'utf8').split('\0').includes(GC_HELPERS_FLAG), `node runs with ${GC_HELPERS_FLAG}`)
  t.notMatch(server.output(), ALLOCATOR_VARIABLE)
})

t.test('a service started by node on the file, without the variable, says so in its log', { skip: glibcVersion() === undefined && 'the variable is glibc\'s' }, async (t) => {
  const child = spawn(...cliCommand(['serve'], true), { env: { ...plain, HEDGELOG_DATA_DIR: tempDir(t), PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(async () => { child.kill('SIGTERM'); await exited(child) })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('hedgelog started')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)))
  })
  const warning = output.split('\n').filter((line) => line.includes(`${ALLOCATOR_VARIABLE} is not set`)).map((line) => JSON.parse(line) as { level: number })
  t.equal(warning.length, 1, 'one warning')
  t.equal(warning[0]?.level, 40, 'at warn level')
})

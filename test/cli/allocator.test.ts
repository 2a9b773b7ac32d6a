import t from 'tap'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { ALLOCATOR_VALUE, ALLOCATOR_VARIABLE, GC_HELPERS_FLAG, allocatorWarning, glibcVersion } from '../../src/cli/allocator.js'
import { fixMmapThreshold } from '../../src/kernel/free-memory.js'
import { MAIN, cliCommand, exited, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

const ROOT = new URL('../../../', import.meta.url)
const environOf = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
const { [ALLOCATOR_VARIABLE]: _inherited, ...plain } = process.env

t.test('the warning is given on glibc only, when the variable is missing and the process cannot set the threshold itself', async (t) => {
  const cannot = () => false
  t.match(allocatorWarning({}, () => '2.36', cannot), new RegExp(`^${ALLOCATOR_VARIABLE} is not set: .*${ALLOCATOR_VARIABLE}=${ALLOCATOR_VALUE}$`))
  t.equal(allocatorWarning({ [ALLOCATOR_VARIABLE]: ALLOCATOR_VALUE }, () => '2.36', cannot), null)
  t.equal(allocatorWarning({}, () => undefined, cannot), null, 'not on musl, macOS or Windows, where the variable means nothing')
  const asked: number[] = []
  t.equal(allocatorWarning({}, () => '2.36', (bytes) => { asked.push(bytes); return true }), null, 'none when the threshold could be set from inside')
  t.same(asked, [Number(ALLOCATOR_VALUE)], 'to the launcher\'s value')
})

t.test('the addon sets the threshold on glibc', { skip: glibcVersion() === undefined && 'mallopt is glibc\'s' }, async (t) => {
  t.equal(fixMmapThreshold(Number(ALLOCATOR_VALUE)), true)
  t.equal(fixMmapThreshold(0), false, 'a threshold out of range is refused')
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

t.test('a service started by node on the file, without the variable, sets the threshold itself and warns of nothing', { skip: glibcVersion() === undefined && 'the variable is glibc\'s' }, async (t) => {
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
  const warnings = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.level >= 40)
  t.same(warnings, [], 'no warning in its log')
})

import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isPublicAddress } from '../../src/delivery/addresses.js'
import { OutboundFailed, OutboundRefused, postJson } from '../../src/delivery/outbound.js'
import { signatureHeader, verifySignature } from '../../src/delivery/signature.js'
import { httpReceiver } from '../support/receiver.js'

t.test('only public unicast addresses are allowed without the operator\'s leave', async (t) => {
  const refused = [
    '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1', '172.31.255.255',
    '192.0.0.8', '192.168.1.1', '198.18.0.1', '224.0.0.1', '240.0.0.1', '255.255.255.255',
    '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '2001:db8::1', '2002:7f00:1::1', '2002:0a00:1::', '100::1', '4000::1',
    'not an address',
  ]
  const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700::1111', '::ffff:93.184.216.34', '2002:5db8:d822::1']
  for (const address of refused) t.notOk(isPublicAddress(address), `${address} is refused`)
  for (const address of allowed) t.ok(isPublicAddress(address), `${address} is allowed`)
})

t.test('a 2xx answer resolves, with the exact body and headers received', async (t) => {
  const receiver = await httpReceiver(t, [204])
  await postJson(`${receiver.url}/in?x=1`, '{"a":1}', { headers: { 'x-extra': 'yes' }, allowPrivate: true, timeoutMs: 2000 })
  t.match(receiver.received, [{ path: '/in?x=1', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-extra': 'yes' } }])
})

t.test('a non-2xx answer, a redirect and a closed port fail in a retryable way, naming the host only', async (t) => {
  const receiver = await httpReceiver(t, [500, 302])
  await t.rejects(postJson(`http://user:secret@127.0.0.1:${new URL(receiver.url).port}/?token=abc`, '{}', { allowPrivate: true, timeoutMs: 2000 }),
    { name: 'OutboundFailed', reason: /^127\.0\.0\.1 answered HTTP 500$/ })
  await t.rejects(postJson(receiver.url, '{}', { allowPrivate: true, timeoutMs: 2000 }),
    { name: 'OutboundFailed', reason: /HTTP 302 \(redirects are not followed\)/ })
  t.equal(receiver.received.length, 2, 'the redirect was not followed')
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  await t.rejects(postJson(`http://127.0.0.1:${port}/`, '{}', { allowPrivate: true, timeoutMs: 2000 }), OutboundFailed)
})

t.test('a receiver that never answers is cut off after the timeout', async (t) => {
  const receiver = await httpReceiver(t, ['hang'])
  const started = performance.now()
  await t.rejects(postJson(receiver.url, '{}', { allowPrivate: true, timeoutMs: 200 }),
    { name: 'OutboundFailed', reason: /did not answer within 200 ms/ })
  const took = performance.now() - started
  t.ok(took >= 190 && took < 1500, `cut off after ${Math.round(took)} ms`)
})

t.test('loopback and private targets are refused before any connection unless allowed', async (t) => {
  const receiver = await httpReceiver(t)
  const port = new URL(receiver.url).port
  const targets = [
    `http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://[::1]:${port}/`, `http://2130706433:${port}/`, `http://0x7f.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`, 'http://10.1.2.3/', 'http://169.254.169.254/latest/meta-data/',
  ]
  for (const target of targets) {
    await t.rejects(postJson(target, '{}', { allowPrivate: false, timeoutMs: 2000 }), OutboundRefused, `${target} is refused`)
  }
  t.equal(receiver.received.length, 0, 'the receiver saw no request')
  const rebinding = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }]
  await t.rejects(postJson('http://hooks.example.com/', '{}', { allowPrivate: false, timeoutMs: 2000, resolve: rebinding }),
    { name: 'OutboundRefused', reason: /10\.0\.0\.7/ }, 'a name with any private address is refused')
  const hanging = () => new Promise<never>(() => {})
  const started = performance.now()
  await t.rejects(postJson('http://slow.example.com/', '{}', { allowPrivate: false, timeoutMs: 200, resolve: hanging }),
    { name: 'OutboundFailed', reason: /not resolved within 200 ms/ }, 'a resolver that never answers is cut off too')
  t.ok(performance.now() - started < 1500)
  for (const target of ['ftp://example.com/', 'file:///etc/passwd', 'not a url']) {
    await t.rejects(postJson(target, '{}', { allowPrivate: true, timeoutMs: 2000 }), OutboundRefused, `${target} is refused`)
  }
})

t.test('a name is resolved once and the connection goes to the address that was checked', async (t) => {
  const receiver = await httpReceiver(t)
  let lookups = 0
  const resolve = async () => { lookups++; return [{ address: '127.0.0.1', family: 4 }] }
  await postJson(`http://hooks.internal.test:${new URL(receiver.url).port}/x`, '{}', { allowPrivate: true, timeoutMs: 2000, resolve })
  t.equal(lookups, 1)
  t.equal(receiver.received[0]?.headers.host, `hooks.internal.test:${new URL(receiver.url).port}`, 'the request names the host it was given')
})

t.test('a signature verifies over exactly the body and time it was made for', async (t) => {
  const at = new Date('2027-01-05T09:00:00Z')
  const header = signatureHeader('whsec_test', '{"a":1}', at)
  t.match(header, /^t=1799139600,v1=[0-9a-f]{64}$/)
  t.ok(verifySignature('whsec_test', '{"a":1}', header, at))
  t.notOk(verifySignature('whsec_test', '{"a":2}', header, at), 'another body')
  t.notOk(verifySignature('whsec_other', '{"a":1}', header, at), 'another secret')
  t.notOk(verifySignature('whsec_test', '{"a":1}', header.replace('t=1799139600', 't=1799139601'), at), 'another time')
  t.notOk(verifySignature('whsec_test', '{"a":1}', header, new Date(at.getTime() + 301_000)), 'too late')
  t.notOk(verifySignature('whsec_test', '{"a":1}', 'garbage', at))
})

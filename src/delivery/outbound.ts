import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { isPublicAddress } from './addresses.js'

/** A delivery that can never succeed as addressed: not worth retrying. `reason` is safe to store. */
export class OutboundRefused extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'OutboundRefused'
  }
}

/** A delivery that failed this time (unreachable, too slow, not a 2xx answer): worth retrying. */
export class OutboundFailed extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'OutboundFailed'
  }
}

export type Resolver = (host: string) => Promise<readonly LookupAddress[]>

export interface PostOptions {
  readonly headers?: Readonly<Record<string, string>>
  /** Allows loopback, private and other non-public addresses. */
  readonly allowPrivate: boolean
  /** Connecting, sending and the whole answer must fit in this. */
  readonly timeoutMs: number
  readonly resolve?: Resolver
}

const systemResolver: Resolver = (host) => new Promise((resolve, reject) =>
  dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

/** Answers with at most this much of a receiver's body read; the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024

const parseTarget = (target: string): URL => {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new OutboundRefused('the target is not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefused(`only http and https targets are delivered to, not ${url.protocol}`)
  return url
}

/** The addresses a target host stands for, each checked; the connection goes to the first, with no second lookup. */
const addressesOf = async (host: string, options: PostOptions): Promise<LookupAddress> => {
  const family = isIP(host)
  let addresses: readonly LookupAddress[]
  if (family !== 0) addresses = [{ address: host, family }]
  else {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new OutboundFailed(`the host ${host} was not resolved within ${options.timeoutMs} ms`)), options.timeoutMs)
    })
    try {
      addresses = await Promise.race([(options.resolve ?? systemResolver)(host), late])
    } catch (error) {
      throw error instanceof OutboundFailed ? error : new OutboundFailed(`the host ${host} could not be resolved`)
    } finally {
      clearTimeout(timer)
    }
  }
  const [first] = addresses
  if (!first) throw new OutboundFailed(`the host ${host} has no address`)
  const blocked = options.allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address))
  if (blocked) {
    throw new OutboundRefused(`${host} is ${blocked.address}, not a public address; HEDGELOG_DELIVERY_ALLOW_PRIVATE=1 allows it`)
  }
  return first
}

const pinnedLookup = (chosen: LookupAddress): LookupFunction => (_host, options, callback) => {
  if ((options as { all?: boolean }).all) (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, [chosen])
  else callback(null, chosen.address, chosen.family)
}

/** Reads an answer's body, at most `MAX_ANSWER_BYTES` of it (the connection is cut past that), then calls `done` with it. */
const drain = (response: IncomingMessage, done: (text: string) => void): void => {
  const chunks: Buffer[] = []
  let read = 0
  response.on('data', (chunk: Buffer) => {
    read += chunk.length
    if (read > MAX_ANSWER_BYTES) response.destroy()
    else chunks.push(chunk)
  })
  const end = () => done(Buffer.concat(chunks).toString())
  response.on('end', end)
  response.on('close', end)
}

/**
 * POSTs a JSON body to `target`, which must answer 2xx within the timeout; resolves with the
 * answer's body (its first 64 KiB). Hosts are resolved once and every address checked before
 * connecting; redirects are not followed. Reasons name the host only, never credentials or query
 * strings.
 */
export const postJson = async (target: string, body: string, options: PostOptions): Promise<string> => {
  const url = parseTarget(target)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const chosen = await addressesOf(host, options)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<string>((resolve, reject) => {
    let settled = false
    const finish = (error?: OutboundFailed, answer = '') => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) {
        request.destroy()
        reject(error)
      } else resolve(answer)
    }
    const request = send(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Hedgelog' },
      lookup: pinnedLookup(chosen),
      agent: false,
    }, (response) => {
      const status = response.statusCode ?? 0
      if (status >= 200 && status < 300) drain(response, (answer) => finish(undefined, answer))
      else {
        response.resume()
        finish(new OutboundFailed(`${host} answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`))
      }
    })
    const timer = setTimeout(() => finish(new OutboundFailed(`${host} did not answer within ${options.timeoutMs} ms`)), options.timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) => finish(new OutboundFailed(`${host} could not be reached (${error.code ?? error.message})`)))
    request.end(body)
  })
}

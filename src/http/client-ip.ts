/**
 * The caller's address, for ingestion and for GeoIP alike: the first `X-Forwarded-For` entry (trimmed, with a
 * `:port` after an IPv4 address or a `[v6]:port` form unwrapped), else the socket's peer address.
 */
export const clientIp = (forwardedFor: string | readonly string[] | undefined, peerAddress: string | undefined): string | null => {
  const header = Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor
  const first = typeof header === 'string' ? header.split(',')[0]!.trim() : ''
  const candidate = first !== '' ? stripPort(first) : (peerAddress ?? '')
  return candidate === '' ? null : candidate
}

const stripPort = (address: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) return bracketed[1]!
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address)
  return v4WithPort ? v4WithPort[1]! : address
}


/** `::ffff:1.2.3.4`, as a dual-stack listener reports an IPv4 peer, is that IPv4 address. */
export const plainAddress = (address: string): string => address.replace(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i, '$1')

/**
 * The caller's address as far as it can be trusted, for throttling: the peer's address, unless
 * the peer is one of `trustedProxies`, in which case the last `X-Forwarded-For` entry a trusted
 * proxy did not add (entries left of it may be anything the client wrote). Unlike `clientIp`,
 * a client cannot name another address to spread its requests or to have someone else refused.
 */
export const trustedClientIp = (
  forwardedFor: string | readonly string[] | undefined, peerAddress: string | undefined, trustedProxies: ReadonlySet<string>,
): string => {
  const peer = plainAddress(peerAddress ?? '')
  if (!trustedProxies.has(peer)) return peer
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')
  const hops = (header as string).split(',').map((hop) => plainAddress(stripPort(hop.trim()))).filter((hop) => hop !== '')
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.has(hops[i]!)) return hops[i]!
  return hops[0] ?? peer
}

/**
 * What requests are counted under: an IPv4 address, or an IPv6 address's /64 network, since one
 * IPv6 client is usually given a whole /64 and could otherwise take a new address per request.
 */
export const addressKey = (address: string): string => {
  if (!address.includes(':')) return address
  const [head = '', tail] = address.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`
}

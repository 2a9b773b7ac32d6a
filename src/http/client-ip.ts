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


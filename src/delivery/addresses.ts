import { isIPv4, isIPv6 } from 'node:net'

const v4Number = (address: string): number =>
  address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0)

/** Non-public IPv4 ranges: this network, private, shared (CGNAT), loopback, link-local, IETF, benchmarking, multicast, reserved. */
const V4_BLOCKED: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
]

const inV4Block = (value: number, [base, bits]: readonly [string, number]): boolean =>
  Math.floor(value / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits))

/** The 8 groups of an IPv6 address as numbers; an embedded IPv4 tail counts as two groups. */
const v6Groups = (address: string): number[] => {
  let text = address.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  const tail = text.match(/(\d+\.\d+\.\d+\.\d+)$/)
  if (tail) {
    const v4 = v4Number(tail[1]!)
    text = `${text.slice(0, -tail[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const [head = '', rest] = text.split('::')
  const left = head ? head.split(':') : []
  const right = rest === undefined ? [] : rest ? rest.split(':') : []
  const fill = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...fill, ...right].map((group) => parseInt(group, 16))
}

/**
 * Whether deliveries may connect to `address` (an IPv4 or IPv6 literal) without the operator's
 * leave: only public unicast addresses. IPv4-mapped and IPv4-compatible IPv6 addresses are judged
 * as the IPv4 address they carry.
 */
export const isPublicAddress = (address: string): boolean => {
  if (isIPv4(address)) {
    const value = v4Number(address)
    return !V4_BLOCKED.some((block) => inV4Block(value, block))
  }
  if (!isIPv6(address)) return false
  const groups = v6Groups(address)
  const [first = 0] = groups
  const upperZero = groups.slice(0, 5).every((group) => group === 0)
  if (upperZero && (groups[5] === 0xffff || groups[5] === 0)) {
    const v4 = `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
    // ::, ::1 and ::a.b.c.d all land here and are judged as IPv4 0.0.0.0, 0.0.0.1 and a.b.c.d.
    return isPublicAddress(v4)
  }
  if ((first & 0xfe00) === 0xfc00) return false // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false // multicast ff00::/8
  if (first === 0x2001 && groups[1] === 0x0db8) return false // documentation 2001:db8::/32
  if (first === 0x0064 && groups[1] === 0xff9b) return false // NAT64 64:ff9b::/96 reaches IPv4 ranges through a gateway
  if (first === 0x2002) return isPublicAddress(`${groups[1]! >> 8}.${groups[1]! & 0xff}.${groups[2]! >> 8}.${groups[2]! & 0xff}`) // 6to4 carries an IPv4 address
  if ((first & 0xe000) !== 0x2000) return false // outside 2000::/3, the global unicast block
  return true
}

/**
 * Whether a service elsewhere on the internet (Slack fetching an image) can reach `url`'s host: an
 * IP literal when `isPublicAddress` says so, a name unless it is `localhost` or under `.localhost`.
 * What a name resolves to is not looked up; a name the operator configured is taken as meant.
 */
export const isPublicUrl = (url: string): boolean => {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  if (host.endsWith('.')) host = host.slice(0, -1)
  if (isIPv4(host) || isIPv6(host)) return isPublicAddress(host)
  return host !== '' && host !== 'localhost' && !host.endsWith('.localhost')
}

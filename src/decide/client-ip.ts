import { BlockList, isIP } from 'node:net'

const notPublic = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) notPublic.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) notPublic.addSubnet(network, prefix, 'ipv6')

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as the IPv4 address it carries. */
export const unmapIpv4 = (address: string): string => {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  return mapped ? mapped[1]! : address
}

/** 4 or 6 for a public address; null for invalid, loopback, private, link-local and reserved ones. */
export const publicIpVersion = (address: string): 4 | 6 | null => {
  const version = isIP(address)
  if (version === 0) return null
  const family = version === 4 ? 'ipv4' : 'ipv6'
  return notPublic.check(address, family) ? null : (version as 4 | 6)
}

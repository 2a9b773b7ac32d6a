import t from 'tap'
import { publicIpVersion } from '../../src/decide/client-ip.js'
import { clientIp } from '../../src/http/client-ip.js'
import { createGeoip } from '../../src/decide/geoip.js'

const geoip = createGeoip()

t.test('a public IPv4 address resolves to city, country and continent', async (t) => {
  const properties = geoip.lookup('8.8.8.8')
  t.match(properties, {
    $geoip_country_code: 'US',
    $geoip_country_name: 'United States',
    $geoip_continent_code: 'NA',
    $geoip_continent_name: 'North America',
    $geoip_city_name: String,
  })
  t.same(geoip.lookup('::ffff:8.8.8.8'), properties, 'an IPv4-mapped IPv6 address is the IPv4 address')
})

t.test('a public IPv6 address resolves too', async (t) => {
  t.match(geoip.lookup('2a00:1450:4001:80b::200e'), { $geoip_continent_code: 'EU', $geoip_country_code: String })
})

t.test('every value is a non-empty string and only the seven known keys appear', async (t) => {
  const known = ['$geoip_city_name', '$geoip_country_name', '$geoip_country_code', '$geoip_continent_name', '$geoip_continent_code', '$geoip_postal_code', '$geoip_time_zone']
  for (const ip of ['1.1.1.1', '81.2.69.142', '89.160.20.112', '2001:4860:4860::8888']) {
    const properties = geoip.lookup(ip)
    t.ok(Object.keys(properties).length > 0, ip)
    for (const [key, value] of Object.entries(properties)) {
      t.ok(known.includes(key), `${ip} ${key}`)
      t.ok(typeof value === 'string' && value !== '', `${ip} ${key} = ${String(value)}`)
    }
  }
})

t.test('private, loopback, reserved and invalid addresses give no properties', async (t) => {
  for (const ip of ['127.0.0.1', '10.0.0.8', '192.168.1.1', '172.20.0.1', '169.254.1.1', '100.64.0.1', '::1', 'fd00::1', 'fe80::1', '0.0.0.0', 'garbage', '', '999.1.1.1']) {
    t.same(geoip.lookup(ip), {}, JSON.stringify(ip))
  }
  t.equal(publicIpVersion('8.8.8.8'), 4)
  t.equal(publicIpVersion('2606:4700::1111'), 6)
})

t.test('the client address is the first X-Forwarded-For entry, without a port', async (t) => {
  t.equal(clientIp('203.0.113.7, 10.0.0.1', '127.0.0.1'), '203.0.113.7')
  t.equal(clientIp(' 8.8.8.8:5123 ', undefined), '8.8.8.8')
  t.equal(clientIp('[2001:db8::1]:443', undefined), '2001:db8::1')
  t.equal(clientIp('2001:db8::1', undefined), '2001:db8::1')
  t.equal(clientIp(['1.2.3.4, 5.6.7.8'], undefined), '1.2.3.4')
  t.equal(clientIp(undefined, '9.9.9.9'), '9.9.9.9')
  t.equal(clientIp('', '9.9.9.9'), '9.9.9.9')
  t.equal(clientIp(undefined, undefined), null)
})

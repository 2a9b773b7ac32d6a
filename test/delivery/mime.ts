import { crc32, deflateSync } from 'node:zlib'

/** One part of a MIME message: its headers (names lower-cased) and its decoded body. */
export interface MimePart {
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  readonly parts: readonly MimePart[]
}

const decode = (raw: string, encoding: string): Buffer => {
  if (encoding === 'base64') return Buffer.from(raw.replace(/\s+/g, ''), 'base64')
  if (encoding === 'quoted-printable') {
    const joined = raw.replace(/=\r?\n/g, '')
    const bytes: number[] = []
    for (let i = 0; i < joined.length; i++) {
      if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
        bytes.push(parseInt(joined.slice(i + 1, i + 3), 16))
        i += 2
      } else {
        bytes.push(...Buffer.from(joined[i]!, 'latin1'))
      }
    }
    return Buffer.from(bytes)
  }
  return Buffer.from(raw, 'latin1')
}

/** Parses a message as an SMTP server received it (text as latin1), multipart parts nested. */
export const parseMime = (raw: string): MimePart => {
  const split = raw.search(/\r?\n\r?\n/)
  const head = split < 0 ? raw : raw.slice(0, split)
  const rest = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '')
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const type = headers['content-type'] ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const sections = rest.split(`--${boundary}`)
    const parts = sections.slice(1).filter((section) => !section.startsWith('--')).map((section) => parseMime(section.replace(/^\r?\n/, '').replace(/\r?\n$/, '')))
    return { headers, body: Buffer.alloc(0), parts }
  }
  return { headers, body: decode(rest, (headers['content-transfer-encoding'] ?? '').toLowerCase()), parts: [] }
}

/** Every leaf part of a message, depth first. */
export const leaves = (part: MimePart): MimePart[] => (part.parts.length === 0 ? [part] : part.parts.flatMap(leaves))

/** A valid PNG of `width` × `height` grey pixels. */
export const greyPng = (width: number, height: number): Buffer => {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8) // 8-bit greyscale, no interlace
  const rows = Buffer.alloc((width + 1) * height, 0x80)
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0 // each row's filter byte: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A PNG's size from its signature and IHDR chunk; null when it is not a PNG. */
export const pngDimensions = (png: Buffer): { width: number; height: number } | null => {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  if (png.length < 33 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') return null
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

import { createGunzip } from 'node:zlib'
import { decodingFailed, tooLarge } from './errors.js'

/**
 * Inflates gzip and decodes the result as UTF-8 a chunk at a time, so that no buffer of the
 * whole inflated payload is ever allocated (a large native buffer, once freed, leaves the
 * allocator keeping memory). Refusals as inflating whole then decoding would give: too large
 * first, then invalid gzip, then invalid UTF-8.
 */
export const gunzipText = (bytes: Buffer, limit: number): Promise<string> => new Promise((resolve, reject) => {
  const gunzip = createGunzip()
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  const parts: string[] = []
  let size = 0
  let valid = true
  const decode = (chunk?: Buffer): void => {
    if (!valid) return
    try {
      parts.push(chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true }))
    } catch {
      valid = false
      parts.length = 0
    }
  }
  gunzip.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > limit) {
      gunzip.destroy()
      reject(tooLarge(`decompressed payload exceeds ${limit} bytes`))
      return
    }
    decode(chunk)
  })
  gunzip.on('error', () => reject(decodingFailed('invalid gzip data')))
  gunzip.on('end', () => {
    decode()
    if (valid) resolve(parts.join(''))
    else reject(decodingFailed('invalid body encoding'))
  })
  gunzip.end(bytes)
})

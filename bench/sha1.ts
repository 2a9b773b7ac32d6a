/**
 * `node dist/bench/sha1.js`: the flag engine's SHA-1 against Node's own, per bucketing hash of a
 * flag key and a distinct id (what `/decide` computes once or twice per flag). Both are checked
 * to agree before anything is timed; medians of seven rounds, each of 200 passes over 1,000 ids.
 */
import { createHash, hash } from 'node:crypto'
import { sha1WordsOf } from '../src/decide/sha1.js'

const ids = Array.from({ length: 1000 }, (_, i) => `user-${i}-${(i * 2654435761 >>> 0).toString(36)}`)
const bucket = (high: number, low: number): number => (high * 2 ** 28 + (low >>> 4)) / 0xfffffffffffffff

const handMade = (): number => ids.reduce((sum, id) => {
  const words = sha1WordsOf('my-flag', '.', id, '')
  return sum + bucket(words[0]!, words[1]!)
}, 0)
const cryptoHash = (): number => ids.reduce((sum, id) => {
  const digest = hash('sha1', `my-flag.${id}`, 'buffer')
  return sum + bucket(digest.readUInt32BE(0), digest.readUInt32BE(4))
}, 0)
const cryptoCreateHash = (): number => ids.reduce((sum, id) => {
  const digest = createHash('sha1').update(`my-flag.${id}`).digest()
  return sum + bucket(digest.readUInt32BE(0), digest.readUInt32BE(4))
}, 0)

if (handMade() !== cryptoHash() || handMade() !== cryptoCreateHash()) throw new Error('the hashes disagree')

const nsPerHash = (run: () => number): number => {
  const start = process.hrtime.bigint()
  for (let pass = 0; pass < 200; pass++) run()
  return Number(process.hrtime.bigint() - start) / 200 / ids.length
}
const median = (run: () => number): number => {
  nsPerHash(run)
  const rounds = Array.from({ length: 7 }, () => nsPerHash(run)).sort((a, b) => a - b)
  return rounds[3]!
}

const hand = median(handMade)
const viaHash = median(cryptoHash)
const viaCreateHash = median(cryptoCreateHash)
process.stdout.write(`ns per bucketing hash: hand-made ${hand.toFixed(0)}, crypto.hash ${viaHash.toFixed(0)} (${(viaHash / hand).toFixed(1)} ×), createHash ${viaCreateHash.toFixed(0)} (${(viaCreateHash / hand).toFixed(1)} ×)\n`)

import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { addressKey, plainAddress } from './client-ip.js'

/** Connections one client address may hold open at once by default. */
export const CONNECTIONS_PER_ADDRESS = 256

/**
 * Closes a new connection at once when its address (an IPv6 client's /64) already holds `cap`,
 * before anything is read from it, so one client cannot take the process's whole
 * `maxConnections` and leave nothing for the others. Proxies named in `uncapped` carry many
 * clients' connections and are not held to it.
 */
export const capConnectionsPerAddress = (server: Server, cap: number, uncapped: ReadonlySet<string>): void => {
  const open = new Map<string, number>()
  // Ahead of the HTTP server's own listener, so a refused connection never reaches the parser.
  server.prependListener('connection', (socket: Socket) => {
    const address = plainAddress(socket.remoteAddress ?? '')
    if (address === '' || uncapped.has(address)) return
    const key = addressKey(address)
    const held = open.get(key) ?? 0
    if (held >= cap) return void socket.destroy()
    open.set(key, held + 1)
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1
      if (left === 0) open.delete(key)
      else open.set(key, left)
    })
  })
}

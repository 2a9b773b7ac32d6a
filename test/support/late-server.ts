import { connect, createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

/**
 * Starts forwarding loopback `port` to a real server at `host:targetPort`, byte for byte, so a
 * process told of `port` before sees the server appear; the forwarding stops when the test ends.
 */
export const forwardLater = async (t: Test, port: number, host: string, targetPort: number): Promise<void> => {
  const sockets = new Set<Socket>()
  const server = createServer((inbound) => {
    const outbound = connect({ host, port: targetPort })
    for (const socket of [inbound, outbound]) {
      sockets.add(socket)
      socket.on('error', () => { inbound.destroy(); outbound.destroy() })
      socket.on('close', () => sockets.delete(socket))
    }
    inbound.pipe(outbound).pipe(inbound)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()) }))
}

import { createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

/** A loopback server that accepts connections and never answers (a hung server, a black hole); closed when the test ends. */
export const silentServer = async (t: Test): Promise<number> => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => { sockets.add(socket); socket.on('error', () => undefined) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()) }))
  return (server.address() as { port: number }).port
}

import { connect, type Socket } from 'node:net'

const HEALTH = 'GET /_health HTTP/1.1\r\nHost: x\r\n\r\n'

/**
 * Connects (from `localAddress` when given: any 127.x address is this machine) and sends one
 * health request; resolves once the answer's head arrives or the server hangs up, leaving the
 * socket open.
 */
export const askHealth = (port: number, localAddress?: string): Promise<{ socket: Socket; answer: string }> => new Promise((resolve) => {
  const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) })
  let answer = ''
  socket.on('error', () => undefined)
  socket.on('data', (chunk) => {
    answer += chunk.toString()
    if (answer.includes('\r\n\r\n')) resolve({ socket, answer })
  })
  socket.on('close', () => resolve({ socket, answer }))
  socket.on('connect', () => socket.write(HEALTH))
})

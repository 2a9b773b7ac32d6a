import { BSON } from 'mongodb'
import { createServer, type Server, type Socket } from 'node:net'

const OP_REPLY = 1
const OP_QUERY = 2004
const OP_MSG = 2013

/**
 * A loopback server that speaks just enough of MongoDB's wire protocol to answer the handshake and
 * `hello` as a server described by `hello` would (standalone when it has no `setName`), and `{ok: 1}`
 * to anything else, on `port` when given. It lets the adapter's start-up checks run without a real server.
 */
export const fakeMongo = async (hello: Record<string, unknown>, port = 0): Promise<{ url: string; close(): Promise<void> }> => {
  const answer = {
    helloOk: true, ismaster: true, isWritablePrimary: true, maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000, localTime: new Date(), logicalSessionTimeoutMinutes: 30, connectionId: 1,
    minWireVersion: 0, maxWireVersion: 21, readOnly: false, ok: 1, ...hello,
  }
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let pending = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const message = pending.subarray(0, pending.readInt32LE(0))
        pending = pending.subarray(message.length)
        socket.write(reply(message, answer))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const bound = (server.address() as { port: number }).port
  return {
    url: `mongodb://127.0.0.1:${bound}/?directConnection=true&serverSelectionTimeoutMS=2000`,
    close: () => new Promise((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()) }),
  }
}

const commandOf = (message: Buffer): Record<string, unknown> => {
  const opCode = message.readInt32LE(12)
  if (opCode === OP_MSG) return BSON.deserialize(message.subarray(21))
  // OP_QUERY: flags, then the collection name as a C string, skip and limit, then the query.
  const nameEnd = message.indexOf(0, 20)
  return BSON.deserialize(message.subarray(nameEnd + 9))
}

const reply = (message: Buffer, hello: Record<string, unknown>): Buffer => {
  const requestId = message.readInt32LE(4)
  const opCode = message.readInt32LE(12)
  const command = commandOf(message)
  const isHello = 'hello' in command || 'ismaster' in command || 'isMaster' in command
  const document = Buffer.from(BSON.serialize(isHello ? hello : { ok: 1 }))
  const header = Buffer.alloc(16)
  let body: Buffer
  if (opCode === OP_QUERY) {
    body = Buffer.alloc(20)
    body.writeInt32LE(1, 16)
    header.writeInt32LE(OP_REPLY, 12)
  } else {
    body = Buffer.from([0, 0, 0, 0, 0])
    header.writeInt32LE(OP_MSG, 12)
  }
  header.writeInt32LE(16 + body.length + document.length, 0)
  header.writeInt32LE(requestId + 1_000_000, 4)
  header.writeInt32LE(requestId, 8)
  return Buffer.concat([header, body, document])
}

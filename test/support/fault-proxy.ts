import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy between a client and a server (real sockets on loopback) that can break the path
 * the way networks and servers break: `cut` resets every connection and refuses new ones, as a
 * server that went down; `stall` keeps connections open but holds every byte, as a hung server
 * or a partition; `delay` adds latency to every byte in both directions; `restore` heals it all,
 * delivering what a stall held.
 */
export interface FaultProxy {
  readonly host: string
  readonly port: number
  /** `host:port` of the proxy, for building connection strings. */
  readonly address: string
  cut(): Promise<void>
  stall(): void
  delay(ms: number): void
  restore(): Promise<void>
  /** Connections currently open through the proxy. */
  openConnections(): number
  close(): Promise<void>
}

/** One direction of one connection: chunks go out in order, each after the latency in force when it came. */
class Direction {
  private held: Buffer[] = []
  private lastDue = 0

  constructor(private readonly to: Socket, private readonly state: { stalled: boolean; latencyMs: number }) {}

  take(chunk: Buffer): void {
    if (this.state.stalled) this.held.push(chunk)
    else this.send(chunk)
  }

  release(): void {
    const held = this.held
    this.held = []
    for (const chunk of held) this.send(chunk)
  }

  private send(chunk: Buffer): void {
    if (this.state.latencyMs === 0 && this.lastDue <= Date.now()) {
      this.to.write(chunk)
      return
    }
    // Never before an earlier chunk: latency delays bytes, it does not reorder them.
    const due = Math.max(Date.now() + this.state.latencyMs, this.lastDue)
    this.lastDue = due
    setTimeout(() => { if (!this.to.destroyed) this.to.write(chunk) }, due - Date.now())
  }
}

const listen = (server: Server, port: number, host: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => { server.off('error', reject); resolve() })
  })

export const faultProxy = async (target: { host: string; port: number }, host = '127.0.0.1'): Promise<FaultProxy> => {
  const state = { stalled: false, latencyMs: 0 }
  const pairs = new Set<{ client: Socket; upstream: Socket; directions: Direction[] }>()
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    const pair = { client, upstream, directions: [new Direction(upstream, state), new Direction(client, state)] }
    pairs.add(pair)
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('data', (chunk: Buffer) => pair.directions[0]!.take(chunk))
    upstream.on('data', (chunk: Buffer) => pair.directions[1]!.take(chunk))
    for (const socket of [client, upstream]) {
      socket.on('error', end)
      socket.on('close', end)
    }
  })
  await listen(server, 0, host)
  const { port } = server.address() as { port: number }
  let listening = true

  const cut = async (): Promise<void> => {
    if (listening) {
      listening = false
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        // A reset, as from a server that died, not the orderly close of one that shut down.
        for (const { client, upstream } of pairs) { client.resetAndDestroy(); upstream.destroy() }
        pairs.clear()
      })
    }
  }

  return {
    host,
    port,
    address: `${host}:${port}`,
    cut,
    stall: () => { state.stalled = true },
    delay: (ms: number) => { state.latencyMs = ms },
    restore: async () => {
      state.stalled = false
      state.latencyMs = 0
      for (const pair of pairs) for (const direction of pair.directions) direction.release()
      if (!listening) {
        await listen(server, port, host)
        listening = true
      }
    },
    openConnections: () => pairs.size,
    close: async () => { await cut() },
  }
}

/** The host and port of the first server of a connection string (`esdb://…`, `mongodb://…`). */
export const firstServer = (url: string): { host: string; port: number } => {
  const hosts = /^[a-z+]+:\/\/(?:[^@/]*@)?([^/?]+)/i.exec(url)?.[1]
  const first = hosts?.split(',')[0]
  if (!first) throw new TypeError(`no server in ${url}`)
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(first)
  if (!match) throw new TypeError(`no server in ${url}`)
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2] ?? (url.startsWith('mongodb') ? 27017 : 2113)) }
}

/**
 * The connection string `url` pointed at the proxy instead of its servers. A MongoDB URL gets
 * `directConnection=true` (else the driver finds the members by their own names and goes around
 * the proxy) and a short server selection, so that an outage fails a call in seconds.
 */
export const throughProxy = (url: string, proxy: FaultProxy): string => {
  const parsed = /^([a-z+]+):\/\/([^@/]*@)?[^/?]+(\/[^?]*)?(\?.*)?$/i.exec(url)
  if (!parsed) throw new TypeError(`not a connection string: ${url}`)
  const [, scheme, credentials = '', path = '', query = ''] = parsed
  if (!scheme!.startsWith('mongodb')) return `esdb://${credentials}${proxy.address}${path}${query}`
  const params = new URLSearchParams(query.slice(1))
  params.delete('replicaSet')
  params.set('directConnection', 'true')
  params.set('serverSelectionTimeoutMS', '3000')
  return `mongodb://${credentials}${proxy.address}${path || '/'}?${params.toString()}`
}

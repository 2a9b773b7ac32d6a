import type { FastifyInstance } from 'fastify'
import { request } from 'node:http'

const listening = new WeakMap<FastifyInstance, Promise<number>>()

/** The app's port, listening on a free one the first time it is asked. */
const portOf = (app: FastifyInstance): Promise<number> => {
  let port = listening.get(app)
  if (!port) {
    const started = app.server.listening ? Promise.resolve() : app.listen({ host: '127.0.0.1', port: 0 }).then(() => undefined)
    port = started.then(() => {
      const address = app.server.address()
      if (address === null || typeof address === 'string') throw new Error('the app has no TCP address')
      return address.port
    })
    listening.set(app, port)
  }
  return port
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'

/**
 * A tiny JSON client that speaks real HTTP to the app (listening on a free port), authenticated
 * with the given headers. Requests name the host `localhost`, so absolute links are predictable.
 */
export const client = (app: FastifyInstance, headers: Record<string, string>) => {
  const send = async (method: Method, url: string, payload?: unknown): Promise<{ status: number; body: any; raw: string; headers: Record<string, string | string[] | undefined> }> => {
    const port = await portOf(app)
    const body = payload === undefined ? undefined : JSON.stringify(payload)
    const raw = await new Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1', port, method, path: url,
        headers: { host: 'localhost', ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
      }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => { text += chunk })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }))
      })
      outgoing.on('error', reject)
      outgoing.end(body)
    })
    // Answers that are not JSON (an export's content) are read as their text only.
    const json = !/^(text\/csv|image\/)/.test(String(raw.headers['content-type'] ?? ''))
    return { status: raw.status, body: raw.text === '' || !json ? undefined : JSON.parse(raw.text), raw: raw.text, headers: raw.headers }
  }
  return {
    get: (url: string) => send('GET', url),
    post: (url: string, payload: unknown = {}) => send('POST', url, payload),
    patch: (url: string, payload: unknown = {}) => send('PATCH', url, payload),
    put: (url: string, payload: unknown = {}) => send('PUT', url, payload),
    delete: (url: string) => send('DELETE', url),
  }
}

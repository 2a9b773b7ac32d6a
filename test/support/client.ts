import type { FastifyInstance } from 'fastify'

/** A tiny JSON client over `app.inject`, authenticated with the given headers. */
export const client = (app: FastifyInstance, headers: Record<string, string>) => {
  const send = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: unknown) => {
    const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
    const body = response.body === '' ? undefined : response.json()
    return { status: response.statusCode, body, raw: response.body }
  }
  return {
    get: (url: string) => send('GET', url),
    post: (url: string, payload: unknown = {}) => send('POST', url, payload),
    patch: (url: string, payload: unknown = {}) => send('PATCH', url, payload),
    put: (url: string, payload: unknown = {}) => send('PUT', url, payload),
    delete: (url: string) => send('DELETE', url),
  }
}

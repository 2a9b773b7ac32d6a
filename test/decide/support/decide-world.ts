import type { Test } from 'tap'
import { world } from '../../support/world.js'
import { client } from '../../support/client.js'

/** A whole service listening on a port, with helpers to create flags and ask decide. */
export const decideWorld = async (t: Test) => {
  const w = await world(t)
  const address = await w.app.listen({ host: '127.0.0.1', port: 0 })
  const api = client(w.app, w.bearer(w.key.value))
  const token = w.installation.project_api_key
  const createFlag = async (key: string, filters: unknown, extra: Record<string, unknown> = {}) => {
    const response = await api.post(`/api/projects/${w.installation.project_id}/feature_flags/`, { key, filters, ...extra })
    if (response.status !== 201) throw new Error(`flag ${key}: ${response.status} ${response.raw}`)
    return response.body as { id: number; key: string }
  }
  const decide = async (body: Record<string, unknown>, url = '/decide/?v=3', headers: Record<string, string> = {}) => {
    const response = await w.app.inject({ method: 'POST', url, payload: { token, ...body }, headers })
    return { status: response.statusCode, body: response.json() as Record<string, any> }
  }
  return { ...w, address, api, token, createFlag, decide }
}

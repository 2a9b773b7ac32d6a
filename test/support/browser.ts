import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'
import { chromium, type BrowserContext, type Response } from 'playwright-core'
import { eventually } from './crash-points.js'
import { tempDir } from './temp.js'

export const CHROMIUM = '/usr/bin/chromium'

/** Whether Debian's Chromium is here; CI installs it, elsewhere the browser tests say they were skipped. */
export const chromiumAvailable = (): boolean => existsSync(CHROMIUM)

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
]

/** A headless Chromium with a fresh profile (so nothing is cached from an earlier page), closed when the test ends. */
export const launchChromium = async (t: Test): Promise<BrowserContext> => {
  const context = await chromium.launchPersistentContext(tempDir(t, 'hedgelog-chromium-'), {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1000, height: 700 },
  })
  t.teardown(() => context.close())
  return context
}

/** Serves one HTML page from its own loopback origin (another port than Hedgelog's), for the test's lifetime. */
export const servePage = async (t: Test, html: string): Promise<string> => {
  const server = createServer((request, response) => {
    if (request.url === '/' || request.url?.startsWith('/?')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
    } else {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

export interface SeenRequest {
  readonly url: string
  readonly method: string
  readonly status: number
  /** The request body as sent (after any compression), or null without one. */
  readonly body: Buffer | null
  readonly response: Response
}

/** What the page asked of Hedgelog, and what went wrong with it: statuses of 400 and up, failed requests, CORS errors. */
export const watchRequests = (context: BrowserContext, origin: string) => {
  const seen: SeenRequest[] = []
  const problems: string[] = []
  context.on('response', (response) => {
    if (!response.url().startsWith(origin)) return
    const request = response.request()
    seen.push({ url: response.url(), method: request.method(), status: response.status(), body: request.postDataBuffer(), response })
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`)
  })
  context.on('requestfailed', (request) => {
    if (request.url().startsWith(origin)) problems.push(`failed ${request.url()}: ${request.failure()?.errorText ?? ''}`)
  })
  context.on('console', (message) => {
    if (/CORS|Access-Control/i.test(message.text())) problems.push(`console: ${message.text()}`)
  })
  /**
   * The first response seen that `matches`, waiting up to `timeoutMs` for it: the browser reports a
   * response a little after the server has acted on its request.
   */
  const next = async (matches: (request: SeenRequest) => boolean, timeoutMs = 10_000): Promise<SeenRequest | undefined> => {
    await eventually(async () => seen.some(matches), timeoutMs)
    return seen.find(matches)
  }
  return { seen, problems, next, paths: () => seen.map((entry) => new URL(entry.url).pathname) }
}

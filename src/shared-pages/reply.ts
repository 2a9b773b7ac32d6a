import type { FastifyReply } from 'fastify'
import { PAGE_STYLE_SOURCE } from './style.js'

/**
 * Who may show a page in a frame: `/embedded/` is made for iframes on other sites, so any page
 * may; `/shared/` is a page of its own, so none may (against clickjacking).
 */
export type Framing = 'any-site' | 'none'

/**
 * The Content-Security-Policy of a shared page. Nothing may load or run: `default-src 'none'`
 * covers scripts, images, fonts, fetches and frames, `base-uri` and `form-action` are closed as
 * well, and the only style is the page's own `<style>` block, allowed by its hash.
 */
export const pagePolicy = (framing: Framing): string => [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_SOURCE}`,
  "base-uri 'none'",
  "form-action 'none'",
  `frame-ancestors ${framing === 'any-site' ? '*' : "'none'"}`,
].join('; ')

/** The headers every shared page is sent with. */
export const pageHeaders = (framing: Framing): Record<string, string> => ({
  'content-security-policy': pagePolicy(framing),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  ...(framing === 'none' ? { 'x-frame-options': 'DENY' } : {}),
})

/** Answers `html` with its status and a shared page's headers. */
export const sendPage = (reply: FastifyReply, status: number, html: string, framing: Framing): FastifyReply =>
  reply.code(status).headers(pageHeaders(framing)).type('text/html; charset=utf-8').send(html)

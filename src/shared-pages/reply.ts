import type { FastifyReply } from 'fastify'
import type { SharedPage } from './page.js'
import { PAGE_STYLE_SOURCE } from './style.js'

/**
 * Who may show a page in a frame: `/embedded/` is made for iframes on other sites, so any page
 * may; `/shared/` is a page of its own, so none may (against clickjacking).
 */
export type Framing = 'any-site' | 'none'

/**
 * The Content-Security-Policy of a shared page. Nothing may load or run: `default-src 'none'`
 * covers scripts, images, fonts, fetches and frames, and `base-uri` and `form-action` are closed
 * as well. The only style element is the page's own `<style>` block, allowed by its hash.
 *
 * ECharts' SVG sets each text's font in a `style` attribute, and Chromium refuses style
 * attributes under a `style-src` of hashes alone (the text then falls back to the browser's
 * default font size, and each refusal is reported). Rather than `'unsafe-inline'`, which would
 * let any style attribute through, `style-src-attr` allows by hash (`'unsafe-hashes'`) exactly
 * the attribute values the page's charts carry, listed by `styleAttributes`; every one of them is
 * the charts module's own font text, none is user text. A browser without `style-src-attr` falls
 * back to `style-src` and shows the charts in its default font.
 */
export const pagePolicy = (framing: Framing, styleAttributes: readonly string[] = []): string => [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_SOURCE}`,
  ...(styleAttributes.length > 0 ? [`style-src-attr 'unsafe-hashes' ${styleAttributes.join(' ')}`] : []),
  "base-uri 'none'",
  "form-action 'none'",
  `frame-ancestors ${framing === 'any-site' ? '*' : "'none'"}`,
].join('; ')

/** The headers every shared page is sent with. */
export const pageHeaders = (framing: Framing, styleAttributes: readonly string[] = []): Record<string, string> => ({
  'content-security-policy': pagePolicy(framing, styleAttributes),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  ...(framing === 'none' ? { 'x-frame-options': 'DENY' } : {}),
})

/** Answers a page with its status and a shared page's headers. */
export const sendPage = (reply: FastifyReply, status: number, page: SharedPage, framing: Framing): FastifyReply =>
  reply.code(status).headers(pageHeaders(framing, page.styleAttributes)).type('text/html; charset=utf-8').send(page.html)

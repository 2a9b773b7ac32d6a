import type { ResultTable } from '../insights/result-table.js'
import type { InsightReport } from './insight-reports.js'
import { heading, reportSubject, reportTarget, type Report } from './report.js'

/** Text made safe to stand in HTML, in element content and in quoted attribute values alike. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!)

/** An insight's picture in an e-mail: the attachment its `<img>` names by `cid`. */
export interface InlinePicture {
  readonly cid: string
  readonly width: number
}

const FONT = 'font-family:-apple-system,BlinkMacSystemFont,\'Segoe UI\',Roboto,Helvetica,Arial,sans-serif'
const MUTED = 'color:#6b6f76'
const LINK = 'color:#1d4aff'

const link = (url: string, text: string, style = LINK): string => `<a href="${escapeHtml(url)}" style="${style}">${escapeHtml(text)}</a>`

const tableHtml = (table: ResultTable): string => {
  const cell = (tag: 'th' | 'td', text: string, i: number) =>
    `<${tag} style="padding:4px 8px;border-bottom:1px solid #e4e5e9;text-align:${i === 0 ? 'left' : 'right'}">${escapeHtml(text)}</${tag}>`
  return [
    '<table style="border-collapse:collapse;font-size:13px" cellpadding="0" cellspacing="0">',
    `<tr>${table.columns.map((column, i) => cell('th', column, i)).join('')}</tr>`,
    ...table.rows.map((row) => `<tr>${row.map((value, i) => cell('td', value, i)).join('')}</tr>`),
    '</table>',
  ].join('')
}

/** An insight in the message: its name as a link, then its picture, or its table (or why it has none) when it has no picture. */
const insightHtml = (insight: InsightReport, picture: InlinePicture | null): string => {
  const body = picture
    ? `<img src="cid:${escapeHtml(picture.cid)}" alt="${escapeHtml(insight.name)}" width="${picture.width}" style="display:block;width:100%;max-width:${picture.width}px;height:auto;border:1px solid #e4e5e9;border-radius:6px">`
    : insight.table ? tableHtml(insight.table) : `<p style="${MUTED}">${escapeHtml(insight.error ?? 'No results yet.')}</p>`
  return `<h2 style="font-size:16px;margin:24px 0 8px">${link(insight.url, insight.name, 'color:#151515;text-decoration:none')}</h2>${body}`
}

/**
 * The HTML body of a report e-mail: what it is about, with its link, above each insight's picture
 * (inline attachments, named in `pictures` in the order of `report.insights`), the dashboard's
 * text cards, how many of its insights are shown, and where to manage the subscription. Every
 * text that users wrote is escaped.
 */
export const reportHtml = (report: Report, pictures: readonly (InlinePicture | null)[]): string => {
  const target = reportTarget(report)
  const cards = report.dashboard?.tiles ?? []
  const shown = report.insights.length
  const parts = [
    `<h1 style="font-size:20px;margin:0 0 8px">${escapeHtml(heading(report))}</h1>`,
    `<p style="margin:0 0 8px">The ${target.kind} <strong>${link(target.url, target.name)}</strong>, ${escapeHtml(report.subscription.summary)}.</p>`,
    `<p style="margin:0 0 16px">${link(target.url, `Open in Hedgelog`)}${target.shared_url ? ` · ${link(target.shared_url, 'Shared view')}` : ''}</p>`,
    ...report.insights.map((insight, i) => insightHtml(insight, pictures[i] ?? null)),
    ...(report.dashboard && cards.length === 0 && shown === 0 ? [`<p style="${MUTED}">This dashboard has no tiles.</p>`] : []),
    ...(cards.length > 0 ? [`<ul style="margin:24px 0 0;padding-left:20px">${cards.map((tile) => `<li>${escapeHtml(tile.text || `tile ${tile.id}`)}</li>`).join('')}</ul>`] : []),
    ...(report.dashboard && shown > 0
      ? [`<p style="margin:24px 0 0;${MUTED}">Showing ${shown} of ${report.insight_count} insight${report.insight_count === 1 ? '' : 's'}.${report.insight_count > shown ? ` ${link(target.url, 'See the rest in Hedgelog')}` : ''}</p>`]
      : []),
    `<hr style="border:none;border-top:1px solid #e4e5e9;margin:24px 0 12px">`,
    `<p style="font-size:12px;${MUTED}">You get this because of a subscription to this ${target.kind}. ${link(report.manage_url, 'Manage or stop the subscription')}.</p>`,
  ]
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(reportSubject(report))}</title></head>`,
    `<body style="margin:0;padding:0;background:#f6f6f6;${FONT};color:#151515">`,
    `<div style="max-width:840px;margin:0 auto;padding:24px;background:#ffffff">`,
    ...parts,
    '</div></body></html>',
  ].join('\n')
}

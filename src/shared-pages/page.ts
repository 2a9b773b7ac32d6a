import type { ChartSize } from '../charts/chart-input.js'
import { chartInputOf } from '../charts/insight-chart.js'
import { drawChartSvg } from '../charts/chart-pool.js'
import { escapeHtml, escapeText } from './escape.js'
import { figuresOf, figuresTable, queryKind } from './figures.js'
import { styleAttributeSources, withoutStyleElements } from './inline-styles.js'
import { PAGE_STYLE } from './style.js'

type Json = Record<string, unknown>

/** A page, and the CSP hash sources of the style attributes its charts carry (see `reply.ts`). */
export interface SharedPage {
  readonly html: string
  readonly styleAttributes: readonly string[]
}

/** The charts drawn for one page, gathered as it is written. */
type Drawn = string[]

const pageOf = (html: string, drawn: Drawn): SharedPage => ({ html, styleAttributes: styleAttributeSources(drawn) })

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The size a chart is drawn at on a dashboard's page, and alone on an insight's; the page scales it to its box. */
export const TILE_CHART_SIZE: ChartSize = { width: 640, height: 320 }
export const INSIGHT_CHART_SIZE: ChartSize = { width: 900, height: 420 }

/** A whole page around `body`, with the one style block its Content-Security-Policy allows. */
const htmlDocument = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`

const DATE_TIME = new Map<string, Intl.DateTimeFormat>()

/** `iso` as a reader reads it in `timezone` (UTC when that is no zone this runtime knows), with the zone named. */
export const readableTime = (iso: string, timezone: string): string => {
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  let zone = timezone
  let format = DATE_TIME.get(zone)
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone })
    } catch {
      zone = 'UTC'
      format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone })
    }
    if (DATE_TIME.size < 200) DATE_TIME.set(timezone, format)
  }
  return `${format.format(at)} ${format.resolvedOptions().timeZone}`
}

const insightTitle = (insight: Json): string => {
  for (const key of ['name', 'derived_name']) {
    const value = insight[key]
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  return 'Untitled insight'
}

const refreshed = (insight: Json): string => {
  const at = insight['last_refresh']
  const timezone = typeof insight['timezone'] === 'string' ? insight['timezone'] : 'UTC'
  if (typeof at !== 'string') return '<p class="refreshed">Not computed yet</p>'
  return `<p class="refreshed">Last refreshed <time datetime="${escapeHtml(at)}">${escapeHtml(readableTime(at, timezone))}</time></p>`
}

/** The charts of a page's insights, drawn before the page is written: by insight, the SVG without its style elements. */
export type Charts = ReadonlyMap<Json, string>

const hasResult = (insight: Json): boolean => insight['result'] !== null && insight['result'] !== undefined

/** The insights of a shared view (`{dashboard}` or `{insight}`), each with the size its chart is drawn at. */
const chartsOfView = (view: { dashboard?: Json; insight?: Json }): Array<[Json, ChartSize]> => {
  if (view.insight !== undefined) return [[view.insight, INSIGHT_CHART_SIZE]]
  const tiles = Array.isArray(view.dashboard?.['tiles']) ? view.dashboard['tiles'].filter(isObject) : []
  return tiles.flatMap((tile) => (isObject(tile['insight']) ? [[tile['insight'], TILE_CHART_SIZE] as [Json, ChartSize]] : []))
}

/**
 * Draws the charts of a shared view on the charts thread, so that writing the page holds the
 * event loop for no chart; a chart that cannot be drawn is left out (its tile says so).
 */
export const drawCharts = async (view: { dashboard?: Json; insight?: Json }): Promise<Charts> => {
  const charts = new Map<Json, string>()
  await Promise.all(chartsOfView(view).filter(([insight]) => hasResult(insight)).map(async ([insight, size]) => {
    try {
      charts.set(insight, withoutStyleElements(await drawChartSvg(chartInputOf(insight), size)))
    } catch {
      // Left out: the tile says the chart could not be drawn.
    }
  }))
  return charts
}

/**
 * An insight's chart: the SVG the charts module draws (it escapes every text it writes, which
 * is why its output is put on the page as it is), or a note when there is nothing to draw yet.
 */
const chart = (insight: Json, charts: Charts, drawn: Drawn): string => {
  if (!hasResult(insight)) {
    return '<p class="pending" data-chart-pending>Results are being computed. Reload the page in a moment to see them.</p>'
  }
  const svg = charts.get(insight)
  if (svg === undefined) return '<p class="failed" data-chart-failed>This chart could not be drawn.</p>'
  drawn.push(svg)
  return `<figure class="chart" data-chart>${svg}</figure>`
}

/** One insight: its name, description, last refresh, chart and the figures behind it. */
const insightArticle = (insight: Json, charts: Charts, showDescription: boolean, wide: boolean, drawn: Drawn): string => {
  const description = typeof insight['description'] === 'string' && insight['description'].trim() !== '' && showDescription
    ? `<p class="description">${escapeHtml(insight['description'])}</p>` : ''
  const figures = figuresOf(insight)
  const kind = queryKind(insight['query'])
  return `<article class="tile insight-tile${wide ? ' wide' : ''}" data-insight-id="${escapeText(insight['id'])}"${kind === null ? '' : ` data-kind="${escapeHtml(kind)}"`}>
<h2>${escapeHtml(insightTitle(insight))}</h2>${description}
${refreshed(insight)}
${chart(insight, charts, drawn)}
${figures === null ? '' : figuresTable(figures)}
</article>`
}

interface Place {
  readonly x: number
  readonly y: number
  readonly w: number
}

/** Where a tile sits on the dashboard's grid of 12 columns (its `sm` layout); null without one. */
const placeOf = (tile: Json): Place | null => {
  const layouts = tile['layouts']
  const sm = isObject(layouts) ? layouts['sm'] : undefined
  if (!isObject(sm)) return null
  const number = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback)
  return { x: number(sm['x'], 0), y: number(sm['y'], 0), w: number(sm['w'], 6) }
}

/** Tiles in reading order: by their row on the grid, then their column; tiles without a place keep their order, after the placed ones. */
const inReadingOrder = (tiles: readonly Json[]): Json[] => {
  const placed = tiles.map((tile, index) => ({ tile, index, place: placeOf(tile) }))
  placed.sort((a, b) => {
    if (a.place === null || b.place === null) return a.place === b.place ? a.index - b.index : a.place === null ? 1 : -1
    return a.place.y - b.place.y || a.place.x - b.place.x || a.index - b.index
  })
  return placed.map((entry) => entry.tile)
}

const tileHtml = (tile: Json, charts: Charts, drawn: Drawn): string => {
  const wide = (placeOf(tile)?.w ?? 6) >= 12
  if (isObject(tile['insight'])) return insightArticle(tile['insight'], charts, tile['show_description'] !== false, wide, drawn)
  const text = isObject(tile['text']) ? tile['text']['body'] : null
  // A text card's body is shown as the text it is, its line breaks kept: no markdown is rendered.
  return `<article class="tile text-tile${wide ? ' wide' : ''}" data-tile-id="${escapeText(tile['id'])}"><div class="text">${escapeText(text)}</div></article>`
}

const FOOTER = '<footer>Shared from Hedgelog. Read-only.</footer>'

/** The page of a shared dashboard, from its public view (`{dashboard}` of `/shared/{token}`). */
export const dashboardPage = (dashboard: Json, charts: Charts): SharedPage => {
  const drawn: Drawn = []
  const name = typeof dashboard['name'] === 'string' && dashboard['name'].trim() !== '' ? dashboard['name'] : 'Untitled dashboard'
  const description = typeof dashboard['description'] === 'string' && dashboard['description'].trim() !== ''
    ? `<p class="description">${escapeHtml(dashboard['description'])}</p>` : ''
  const tiles = Array.isArray(dashboard['tiles']) ? inReadingOrder(dashboard['tiles'].filter(isObject)) : []
  const body = tiles.length === 0 ? '<p>This dashboard has no tiles yet.</p>' : `<section class="tiles">\n${tiles.map((tile) => tileHtml(tile, charts, drawn)).join('\n')}\n</section>`
  return pageOf(htmlDocument(name, `<main data-dashboard-id="${escapeText(dashboard['id'])}">
<header><h1>${escapeHtml(name)}</h1>${description}</header>
${body}
${FOOTER}
</main>`), drawn)
}

/** The page of a shared insight, from its public view (`{insight}` of `/shared/{token}`). */
export const insightPage = (insight: Json, charts: Charts): SharedPage => {
  const drawn: Drawn = []
  return pageOf(htmlDocument(insightTitle(insight), `<main class="single">
${insightArticle(insight, charts, true, true, drawn)}
${FOOTER}
</main>`), drawn)
}

/** What a link that shares nothing (sharing off, an unknown token, a deleted resource) opens. */
export const notFoundPage = (): SharedPage => pageOf(htmlDocument('Not found', `<main>
<header><h1>Not found</h1><p class="description">Nothing is shared at this address: the link is wrong, or sharing was turned off.</p></header>
${FOOTER}
</main>`), [])

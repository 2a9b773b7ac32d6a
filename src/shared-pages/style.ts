import { createHash } from 'node:crypto'

/**
 * The one style sheet of a shared page, written into its `<style>` block. The page's
 * Content-Security-Policy allows exactly this text by its hash, so any other `<style>` block or
 * style sheet on the page is refused by the browser.
 */
export const PAGE_STYLE = `
:root{color-scheme:light;--ink:#1d1f27;--muted:#5f6270;--line:#e3e4e8;--card:#fff;--ground:#f4f5f7}
*{box-sizing:border-box}
body{margin:0;background:var(--ground);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1280px;margin:0 auto;padding:24px 20px 32px}
header h1{margin:0 0 4px;font-size:24px;line-height:1.25;overflow-wrap:anywhere}
header .description{margin:0 0 8px;color:var(--muted);white-space:pre-wrap;overflow-wrap:anywhere}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,480px),1fr));gap:16px;margin-top:16px}
.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;min-width:0}
.tile.wide{grid-column:1/-1}
.tile h2{margin:0;font-size:16px;overflow-wrap:anywhere}
.tile .description{margin:2px 0 0;color:var(--muted);white-space:pre-wrap;overflow-wrap:anywhere}
.refreshed{margin:2px 0 10px;color:var(--muted);font-size:13px}
.chart{margin:0}
.chart svg{display:block;width:100%;height:auto}
.pending,.failed{display:flex;align-items:center;justify-content:center;min-height:180px;margin:0;color:var(--muted);background:var(--ground);border-radius:6px;text-align:center;padding:12px}
.text-tile .text{white-space:pre-wrap;overflow-wrap:anywhere}
.figures{width:100%;margin-top:10px;border-collapse:collapse;font-size:13px}
.figures th,.figures td{padding:3px 6px;border-top:1px solid var(--line);text-align:left;font-weight:normal;overflow-wrap:anywhere}
.figures thead th{color:var(--muted);border-top:none}
.figures thead th:last-child{text-align:right}
.figures td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.figures tfoot td{text-align:left;color:var(--muted)}
.single .tile{max-width:960px}
footer{margin-top:24px;color:var(--muted);font-size:12px}
`

/** The CSP source that allows `PAGE_STYLE` and nothing else: `'sha256-…'` of its exact text. */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`

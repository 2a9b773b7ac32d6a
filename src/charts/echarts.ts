/**
 * ECharts, loaded from its modular entry points with only what Hedgelog draws: line, bar and
 * pie charts, titles, grids, legends, free graphics, and the SVG renderer.
 *
 * The declarations of `echarts/core` and its siblings re-export their types from paths without
 * a file extension, which TypeScript's NodeNext resolution does not follow, so they would type
 * as empty modules. The same declarations are published under `echarts/types/dist/*`: the
 * modules are typed with those.
 */
import * as chartsModule from 'echarts/charts'
import * as componentsModule from 'echarts/components'
import * as coreModule from 'echarts/core'
import * as renderersModule from 'echarts/renderers'
import type * as Charts from 'echarts/types/dist/charts'
import type * as Components from 'echarts/types/dist/components'
import type * as Core from 'echarts/types/dist/core'
import type * as Renderers from 'echarts/types/dist/renderers'
import { measureText } from './fonts.js'

const core = coreModule as unknown as typeof Core
const charts = chartsModule as unknown as typeof Charts
const components = componentsModule as unknown as typeof Components
const renderers = renderersModule as unknown as typeof Renderers

core.use([
  charts.LineChart, charts.BarChart, charts.PieChart,
  components.TitleComponent, components.GridComponent, components.LegendComponent, components.GraphicComponent,
  renderers.SVGRenderer,
])
core.setPlatformAPI({ measureText })

/** A chart laid out without a DOM, to be written out with `renderToSVGString()` and then disposed. */
export const initSsrChart = (width: number, height: number): Core.EChartsType =>
  core.init(null, null, { renderer: 'svg', ssr: true, width, height })

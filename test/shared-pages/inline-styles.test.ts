import t from 'tap'
import { createHash } from 'node:crypto'
import { styleAttributeSources, withoutStyleElements } from '../../src/shared-pages/inline-styles.js'

const source = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

t.test('each distinct style attribute once, hashed as the browser reads it', async (t) => {
  const svgs = [
    '<svg><text style="font-size:12px;font-family:&quot;DejaVu Sans&quot;;">a</text><text style="font-size:12px;font-family:&quot;DejaVu Sans&quot;;">b</text></svg>',
    '<svg><text x="1" style="font-weight:bold;&#x3b;&#59;">c</text><rect data-style="x"/></svg>',
  ]
  t.same(styleAttributeSources(svgs).sort(), [source('font-size:12px;font-family:"DejaVu Sans";'), source('font-weight:bold;;;')].sort())
  t.same(styleAttributeSources([]), [])
})

t.test('style elements are taken out of a chart, the rest left as it is', async (t) => {
  const svg = '<svg><style ><![CDATA[\n.zr0-cls-0:hover {\npointer-events:none;\n}\n]]>\n\n</style>\n<path class="zr0-cls-0" d="M0 0"></path><STYLE>x</STYLE ></svg>'
  t.equal(withoutStyleElements(svg), '<svg>\n<path class="zr0-cls-0" d="M0 0"></path></svg>')
})

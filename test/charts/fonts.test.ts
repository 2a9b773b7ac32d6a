import t from 'tap'
import { existsSync } from 'node:fs'
import { FONT_FILES, measureText } from '../../src/charts/fonts.js'

t.test('the bundled font files are there', async (t) => {
  t.equal(FONT_FILES.length, 2)
  for (const file of FONT_FILES) t.ok(existsSync(file), file)
})

t.test('text is measured by the bundled font\'s own advances', async (t) => {
  const at12 = measureText('Hello world', '12px DejaVu Sans').width
  t.ok(at12 > 60 && at12 < 75, `${at12}`)
  t.equal(measureText('Hello world', '24px DejaVu Sans').width, 2 * at12, 'in proportion to the size')
  t.ok(measureText('Hello world', 'bold 12px DejaVu Sans').width > at12, 'bold is wider')
  t.ok(measureText('WWWW', '12px x').width > 2 * measureText('iiii', '12px x').width, 'per character')
  t.equal(measureText('', '12px x').width, 0)
})

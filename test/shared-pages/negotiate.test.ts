import t from 'tap'
import { prefersHtml, qualityOf, mediaRanges } from '../../src/shared-pages/negotiate.js'

const CHROMIUM = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const SAFARI = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

t.test('browsers get the page', async (t) => {
  for (const accept of [CHROMIUM, FIREFOX, SAFARI, 'text/html', 'text/*', 'text/html, application/json;q=0.9', 'TEXT/HTML']) {
    t.equal(prefersHtml(accept), true, accept)
  }
  t.equal(prefersHtml(['application/json;q=0.5', 'text/html']), true, 'a header sent twice is read as one list')
})

t.test('API clients, and clients that say nothing or accept anything, keep JSON', async (t) => {
  for (const accept of [
    undefined, '', '*/*', 'application/json', 'application/json, text/plain, */*', 'text/html, application/json',
    'text/html;q=0.5, application/json', 'text/html;q=0, */*', 'application/*', 'text/plain', 'garbage', 'text/html;q=abc, */*;q=0.1',
  ]) {
    t.equal(prefersHtml(accept), false, String(accept))
  }
})

t.test('the most specific matching range gives the quality', async (t) => {
  const ranges = mediaRanges('text/*;q=0.3, text/html;q=0.7, */*;q=0.1, bad, a/b/c')
  t.equal(ranges.length, 3, 'unreadable parts are left out')
  t.equal(qualityOf(ranges, 'text', 'html'), 0.7)
  t.equal(qualityOf(ranges, 'text', 'plain'), 0.3)
  t.equal(qualityOf(ranges, 'application', 'json'), 0.1)
  t.equal(qualityOf(mediaRanges('text/html'), 'application', 'json'), 0, 'no match, no quality')
  t.equal(qualityOf(mediaRanges('text/html;q=7'), 'text', 'html'), 1, 'qualities are held to 0..1')
})

import t from 'tap'
import { elementsChainOf, parseElementsChain } from '../../src/events/elements.js'

t.test('posthog-js elements become PostHog\'s chain notation', async (t) => {
  const chain = elementsChainOf({
    $elements: [
      { tag_name: 'a', $el_text: 'Sign "up"', attr__class: 'btn primary', attr__href: '/signup', nth_child: 1, nth_of_type: 2 },
      { tag_name: 'div', attr__id: 'main', nth_child: 3, nth_of_type: 1 },
    ],
  })
  t.equal(chain, 'a.btn.primary:attr__class="btn primary"attr__href="/signup"href="/signup"nth-child="1"nth-of-type="2"text="Sign \\"up\\"";' +
    'div:attr__id="main"attr_id="main"nth-child="3"nth-of-type="1"')
})

t.test('a chain sent as $elements_chain is kept as it is', async (t) => {
  t.equal(elementsChainOf({ $elements_chain: 'button:text="Go"', $elements: [{ tag_name: 'x' }] }), 'button:text="Go"')
  t.equal(elementsChainOf({}), '')
})

t.test('a chain reads back into elements in order', async (t) => {
  const [first, second] = parseElementsChain('a.btn.primary:attr__href="/signup"href="/signup"nth-child="1"nth-of-type="2"text="Sign \\"up\\"";div:nth-child="3"')
  t.match(first, { tag_name: 'a', attr_class: ['btn', 'primary'], href: '/signup', text: 'Sign "up"', nth_child: 1, nth_of_type: 2, order: 0, event: null })
  t.match(second, { tag_name: 'div', attr_class: null, nth_child: 3, nth_of_type: null, order: 1 })
  t.same(parseElementsChain(''), [])
})

/**
 * A shop page that loads posthog-js the way PostHog's snippet does: `array.js` from the
 * analytics host, lazy extensions fetched from there as needed. What the SDK reports is left on
 * `window.__seen` for the test to read.
 */
export const shopPage = (host: string, token: string): string => `<!doctype html>
<html>
<head>
  <meta charset="utf-8">
  <title>Hedgelog shop</title>
  <script src="${host}/static/array.js"></script>
  <script>
    window.__seen = { flags: null, errors: [] }
    posthog.init(${JSON.stringify(token)}, {
      api_host: ${JSON.stringify(host)},
      request_batching: false,
      // Headless Chromium says so in its user agent, which posthog-js would drop as a bot.
      opt_out_useragent_filter: true,
      person_profiles: 'identified_only',
      loaded: function (ph) { window.__loaded = true },
    })
    posthog.onFeatureFlags(function (flags) {
      window.__seen.flags = {
        keys: flags,
        beta: posthog.isFeatureEnabled('beta'),
        payload: posthog.getFeatureFlagPayload('beta'),
      }
    })
  </script>
</head>
<body>
  <h1>Hedgelog shop</h1>
  <button id="buy" class="cta primary" data-attr="buy-button">Buy now</button>
</body>
</html>`

import type { FeatureModule } from '../http/feature-module.js'

/** posthog-js's scripts, served as PostHog's CDN serves them. */
export const staticModule: FeatureModule = {
  name: 'static',
  routes: async () => {
    const { staticRoutes } = await import('./routes.js')
    return { ingest: [staticRoutes] }
  },
}

import type { CommandContext } from '../kernel/handle-command.js'
import { ResultNotReadable } from '../kernel/errors.js'
import type { Environment } from '../readstore/environment.js'
import { createInsight, type InsightDeps } from '../insights/service.js'
import type { Actor } from './permissions.js'
import type { Dashboard } from './state.js'
import { TEMPLATES } from './templates.js'
import { ownValue } from '../kernel/own-value.js'

/**
 * Creates the insights a dashboard's template names, each with `dashboards: [id]`, the command
 * the insights API runs: the insight's stream records the change and the dashboard completes it
 * (the scheduler finishes a completion a crash interrupted). They run one after another in the
 * template's order under the request's context, so a retry with the same `Idempotency-Key`
 * takes the same ids and records nothing twice. Answers the dashboard with its insight tiles.
 */
export const createTemplateInsights = async (
  deps: InsightDeps, environment: Environment, dashboard: Dashboard, template: string | undefined, actor: Actor, context: CommandContext,
): Promise<Dashboard> => {
  const insights = template ? ownValue(TEMPLATES, template)?.insights ?? [] : []
  if (insights.length === 0) return dashboard
  for (const insight of insights) {
    await createInsight(deps, environment, { ...insight, query: insight.query, dashboards: [dashboard.id], saved: true }, actor, context)
  }
  // Each creation waited for the dashboards' read model to show its tile, so this read has them all.
  const filled = await deps.models.get('dashboards', String(dashboard.id))
  if (!filled) throw new ResultNotReadable()
  return filled
}

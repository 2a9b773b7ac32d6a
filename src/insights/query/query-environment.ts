import { z } from 'zod'
import type { Environment } from '../../readstore/environment.js'
import type { ReadModels } from '../../readstore/read-models.js'
import type { GroupTypeEntry, QueryEnvironment } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { AnyPropertyFilter } from '../schema/property-filters.js'

const TestAccountFilters = z.array(AnyPropertyFilter)

/**
 * The environment's settings a query depends on: its time zone, the first day of its week,
 * its test-account filters and its group types. Test-account filters that are not a list of
 * property filters are refused when a query asks for them, and ignored otherwise.
 */
export const queryEnvironmentOf = async (models: ReadModels, environment: Environment, usesTestAccounts: boolean): Promise<QueryEnvironment> => {
  const mapping = await models.get('group_type_mappings', String(environment.id))
  return queryEnvironmentFrom(environment, mapping?.types ?? [], usesTestAccounts)
}

/** `queryEnvironmentOf` with the environment's group types given rather than read. */
export const queryEnvironmentFrom = (
  environment: Environment, groupTypes: readonly GroupTypeEntry[], usesTestAccounts: boolean,
): QueryEnvironment => {
  const settings = (environment['settings'] ?? {}) as Record<string, unknown>
  const filters = TestAccountFilters.safeParse(settings['test_account_filters'] ?? [])
  if (usesTestAccounts && !filters.success) {
    throw new QueryRefused('The environment\'s test_account_filters are not a list of property filters.', 'invalid_input', 'filterTestAccounts')
  }
  return {
    teamId: environment.id,
    timezone: typeof environment['timezone'] === 'string' ? environment['timezone'] : 'UTC',
    weekStartDay: settings['week_start_day'] === 1 ? 1 : 0,
    testAccountFilters: filters.success ? filters.data : [],
    groupTypes: groupTypes.map((type) => ({ group_type: type.group_type, group_type_index: type.group_type_index })),
  }
}

import type { AuditedResource } from '../readstore/audited-resource.js'
import { insightActivity } from './activity.js'
import { insightStream } from './events.js'

/** Insights as `hedgelog audit insight 3`, the activity log and `?as_of=` read them. */
export const insightAudit: AuditedResource = { kind: 'insight', collection: 'insights', stream: insightStream, activity: insightActivity }

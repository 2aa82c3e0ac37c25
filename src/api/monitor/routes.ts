import { bucketRoutes } from './buckets.js'
import { environmentRoutes } from './environments.js'
import { integrationRoutes } from './integrations.js'
import { messageRoutes } from './messages.js'
import { metricRoutes } from './metrics.js'
import { oauthRoutes } from './oauth.js'
import { resultRoutes } from './results.js'
import { rootRoutes } from './root.js'
import { scheduleRoutes } from './schedules.js'
import { stepRoutes } from './steps.js'
import { testRoutes } from './tests.js'
import { triggerRoutes } from './trigger.js'
import type { MonitorRoute } from './types.js'

/** Every endpoint of the monitoring API (the monitoring specification), served under `/` and `/v1`. */
export const monitoringRoutes: readonly MonitorRoute[] = [
  ...rootRoutes,
  ...integrationRoutes,
  ...bucketRoutes,
  ...testRoutes,
  ...stepRoutes,
  ...environmentRoutes,
  ...scheduleRoutes,
  ...resultRoutes,
  ...metricRoutes,
  ...messageRoutes,
  ...triggerRoutes,
  ...oauthRoutes,
]

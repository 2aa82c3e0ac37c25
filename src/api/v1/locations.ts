import type { Route } from '../http/types.js'
import { localLocation } from '../local-location.js'
import { listQueryOf } from '../paging.js'

/**
 * `GET /workspaces/{ws}/locations`: the locations mock services can run in. This
 * platform has one, the host of its local deployer; paging is accepted as on every list.
 */
export const locationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/locations',
    family: 'v1',
    handler: async (ctx) => {
      await ctx.workspace()
      const query = listQueryOf(ctx.query, ['name'])
      const all = [localLocation()]
      return {
        result: all.slice(query.skip, query.skip + query.limit),
        paging: { limit: query.limit, skip: query.skip, total: all.length },
      }
    },
  },
]

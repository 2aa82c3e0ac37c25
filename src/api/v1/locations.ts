import type { Route } from '../http/types.js'
import { localLocation } from '../local-location.js'
import { listQueryOf } from '../paging.js'
import { offeredHarbors } from '../v4/offered-harbors.js'
import { harborV1LocationView } from '../v4/private-location-views.js'

/**
 * `GET /workspaces/{ws}/locations`: the locations mock services can run in: the host of the
 * platform's local deployer, then the private locations (harbors) offered to the workspace, with
 * their ships' states and figures; paging is accepted as on every list.
 */
export const locationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/workspaces/:workspaceId/locations',
    family: 'v1',
    handler: async (ctx) => {
      const workspace = await ctx.workspace()
      const query = listQueryOf(ctx.query, ['name'])
      const all: object[] = [localLocation()]
      for (const { harbor, ships } of await offeredHarbors(ctx.deps.store, workspace)) {
        all.push(harborV1LocationView(harbor, ships))
      }
      return {
        result: all.slice(query.skip, query.skip + query.limit),
        paging: { limit: query.limit, skip: query.skip, total: all.length },
      }
    },
  },
]

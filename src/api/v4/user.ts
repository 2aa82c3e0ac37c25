import { epochSecondsOrNull } from '../format.js'
import type { Route } from '../http/types.js'

/**
 * `GET /api/v4/user` (spec/001 "User"): the API key's user, so that a client can find its account
 * and workspaces.
 */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/user',
    family: 'v4',
    handler: async (ctx) => {
      const { user, account } = ctx.principal
      const lastAccess = epochSecondsOrNull(user.lastAccess) ?? Math.floor(user.created / 1000)
      return {
        result: {
          id: user.id,
          email: user.email,
          access: lastAccess,
          login: lastAccess,
          firstName: user.firstName,
          lastName: user.lastName,
          displayName: `${user.firstName} ${user.lastName}`.trim(),
          timezone: 0,
          enabled: user.enabled,
          roles: ['user', 'authenticated'],
          accountId: account.id,
          accountRoles: user.accountRoles,
        },
      }
    },
  },
]

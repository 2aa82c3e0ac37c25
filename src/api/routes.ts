import type { Route } from './http/types.js'
import { userRoutes } from './v4/user.js'
import { workspaceRoutes } from './v4/workspaces.js'

/**
 * Every endpoint of the control plane. Each resource module exports its routes; this list is the
 * one place that decides what the platform serves.
 */
export const allRoutes: readonly Route[] = [
  ...userRoutes,
  ...workspaceRoutes,
]

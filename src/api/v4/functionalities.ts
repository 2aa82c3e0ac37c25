/**
 * What this platform offers, for `GET /api/v4/accounts/{id}/functionalities`
 * (docs/api.md#accounts). Mock services always; an interface that adds a capability (the monitoring
 * API adds `functionalApi`) registers it when its routes are loaded.
 */
const offered = new Map<string, string>([['mockServices', 'Mock Services']])

/**
 * Registers a capability of the platform.
 *
 * @example
 * offerFunctionality('functionalApi', 'API Functional Testing')
 */
export function offerFunctionality(funcId: string, displayName: string): void {
  offered.set(funcId, displayName)
}

/**
 * Whether a capability is offered now (a workspace's feature flags follow it).
 *
 * @example
 * isOffered('mockServices') // true
 */
export function isOffered(funcId: string): boolean {
  return offered.has(funcId)
}

/** The functionalities, in the shape of the administration specification (`size` -1: not limited). */
export function functionalities() {
  return {
    additionalSpace: 0,
    functionalities: [...offered].map(([funcId, displayName]) => ({
      funcId,
      size: -1,
      displayName,
    })),
  }
}

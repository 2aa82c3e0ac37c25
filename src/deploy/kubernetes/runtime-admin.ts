import { isUnderstudyError, toWireError } from '../../errors/index.js'
import { httpExchange, type AdminAnswer, type RuntimeAdmin } from '../admin-client.js'
import { isFannedIn } from './fan-in-admin.js'
import type { RuntimeDriver } from './types.js'

/**
 * The runtime admin API of a mock service the Kubernetes driver runs, as one runtime: the
 * inspection ring and verification are fanned in over every pod (failing closed), the other calls
 * go to one ready pod. The agent answers the platform's relayed admin calls through it.
 *
 * @example
 * const answer = await adminRequest(kubernetesRuntimeAdmin(driver, 7), '/inspection/count', { method: 'GET', timeoutMs: 5000, unavailable: 'ERR_API_UNAVAILABLE' })
 */
export function kubernetesRuntimeAdmin(driver: RuntimeDriver, mockServiceId: number): RuntimeAdmin {
  return {
    url: `kubernetes:mock-service/${mockServiceId}`,
    token: null,
    transport: async (exchange): Promise<AdminAnswer> => {
      if (isFannedIn(exchange.method, exchange.path)) {
        try {
          const answer = await driver
            .admin(mockServiceId)
            .request(exchange.method, exchange.path, exchange.json)
          return { status: 200, body: { ...answer } }
        } catch (err) {
          if (!isUnderstudyError(err)) throw err
          return { status: err.statusCode, body: { result: null, error: toWireError(err) } }
        }
      }
      const pod = await driver.onePodAdmin(mockServiceId)
      if (pod === null) {
        return {
          status: 503,
          body: {
            result: null,
            error: {
              code: 'ERR_API_UNAVAILABLE',
              message: `no pod of mock service ${mockServiceId} is ready`,
            },
          },
        }
      }
      return await httpExchange(pod, exchange)
    },
  }
}

import { createRequire } from 'node:module'
import type * as UndiciModule from 'undici'
import type { buildConnector } from 'undici'
import type { EgressPolicy } from './egress.js'

type Undici = typeof UndiciModule
let undiciModule: Undici | null = null

/** undici, loaded on first use: a runtime that never forwards does not pay for it (src/serve/proxy.ts). */
function undici(): Undici {
  undiciModule ??= createRequire(import.meta.url)('undici') as Undici
  return undiciModule
}

/** TLS and socket options of undici's own connector (`rejectUnauthorized`, `cert`, `timeout`...). */
export type ConnectorOptions = buildConnector.BuildOptions

/** Errors after which the next address of the name is tried, as net.connect does with several. */
const tryNext = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT',
])

/**
 * An undici `connect` function that resolves the host itself, checks the addresses with the
 * policy, and connects to an allowed address (the next one when it refuses), by address, the TLS
 * server name staying the host's: there is no second resolution for a DNS answer to change, and
 * every connection a dispatcher opens, each redirect hop's included, is checked. A refusal fails
 * the request with ERR_NET_EGRESS_REFUSED.
 *
 * @example
 * const agent = new Agent({ connect: egressConnector(policy, { rejectUnauthorized: false }) })
 */
export function egressConnector(
  policy: EgressPolicy,
  options: ConnectorOptions = {},
): buildConnector.connector {
  const connect = undici().buildConnector(options)
  return (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80)
    policy.allowedAddresses(opts.hostname, port).then(
      (addresses) => {
        const attempt = (index: number): void => {
          // `host` keeps the name: undici takes the TLS server name (SNI, certificate check) from it.
          connect(
            { ...opts, hostname: addresses[index] as string },
            (...args: buildConnector.CallbackArgs) => {
              const [err] = args
              if (
                err !== null &&
                index + 1 < addresses.length &&
                tryNext.has((err as NodeJS.ErrnoException).code ?? '')
              ) {
                attempt(index + 1)
                return
              }
              callback(...args)
            },
          )
        }
        attempt(0)
      },
      (err: Error) => callback(err, null),
    )
  }
}

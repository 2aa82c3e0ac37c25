import { createRequire } from 'node:module'
import type * as UndiciModule from 'undici'
import type { buildConnector } from 'undici'
import type { EgressPolicy } from './egress.js'

type Undici = typeof UndiciModule
let undiciModule: Undici | null = null

/** undici, loaded on first use: a runtime that never forwards does not pay for it (src/serve/proxy.ts). */
function undici (): Undici {
  undiciModule ??= createRequire(import.meta.url)('undici') as Undici
  return undiciModule
}

/** TLS and socket options of undici's own connector (`rejectUnauthorized`, `cert`, `timeout`...). */
export type ConnectorOptions = buildConnector.BuildOptions

/**
 * An undici `connect` function that resolves the host itself, checks the address with the
 * policy, and connects to that very address (the TLS server name stays the host's): there is no
 * second resolution for a DNS answer to change, and every connection a dispatcher opens, each
 * redirect hop's included, is checked. A refusal fails the request with ERR_NET_EGRESS_REFUSED.
 *
 * @example
 * const agent = new Agent({ connect: egressConnector(policy, { rejectUnauthorized: false }) })
 */
export function egressConnector (policy: EgressPolicy, options: ConnectorOptions = {}): buildConnector.connector {
  const connect = undici().buildConnector(options)
  return (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80)
    policy.resolve(opts.hostname, port).then((address) => {
      // `host` keeps the name: undici takes the TLS server name (SNI, certificate check) from it.
      connect({ ...opts, hostname: address }, callback)
    }, (err: Error) => callback(err, null))
  }
}

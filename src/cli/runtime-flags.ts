import type { ParseArgsConfig } from 'node:util'
import { loadRuntimeOptions, PROTECTED_PORTS_ENV, type RuntimeOptions } from '../config/index.js'
import { isUnderstudyError } from '../errors/index.js'
import { UsageError } from './usage-error.js'
import { egressFromFlags } from './egress-flags.js'

/** Flags shared by `serve` and `run`: listeners, limits, inspection, logging. */
export const runtimeFlagSpec = {
  host: { type: 'string' },
  port: { type: 'string', short: 'p' },
  'tls-port': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'h2c-port': { type: 'string' },
  'admin-port': { type: 'string' },
  'admin-host': { type: 'string' },
  'admin-token': { type: 'string' },
  'body-limit': { type: 'string' },
  'max-header-size': { type: 'string' },
  'proxy-timeout': { type: 'string' },
  'drain-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  'inspection-records': { type: 'string' },
  'inspection-bytes': { type: 'string' },
  'inspection-body-bytes': { type: 'string' },
  'no-inspection': { type: 'boolean' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'log-requests': { type: 'boolean' },
  'validate-requests': { type: 'boolean' },
  'match-host': { type: 'boolean' },
  egress: { type: 'string' },
  'egress-allow': { type: 'string' },
  'no-wiremock-admin': { type: 'boolean' },
  'wiremock-shutdown': { type: 'boolean' },
  'scenario-store': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>

/** Help text of the shared flags. */
export const runtimeFlagHelp = `  --host HOST                  interface to listen on (default 127.0.0.1; 0.0.0.0 for all)
  --port, -p N                 HTTP/1.1 port (default 8080; 0 picks a free one)
  --tls-port N                 also serve HTTPS (h2 and http/1.1 by ALPN) on this port
  --tls-cert FILE --tls-key FILE  PEM certificate and key (default: self-signed for localhost)
  --h2c-port N                 also serve cleartext HTTP/2 (prior knowledge) on this port
  --admin-port N               admin API: /health, /config, /inspection, /log (loopback)
  --admin-host HOST            interface of the admin API (default 127.0.0.1; with a token,
                               the --host interface)
  --admin-token TOKEN          the admin API then needs "Authorization: Bearer TOKEN" (all but
                               GET /health) and may listen beyond loopback; default
                               $UNDERSTUDY_ADMIN_TOKEN. Without a token it answers loopback
                               Host names only
  --body-limit BYTES           largest request body (default 10485760); larger ones get 413
  --max-header-size BYTES      largest request line and headers (default 65536); larger get 431
  --proxy-timeout MS           how long proxyUrl / bypasslive upstreams may take (default 30000)
  --drain-timeout MS           how long SIGTERM waits for requests in flight (default 10000)
  --body-timeout MS            how long a request body may take to arrive; 408 past it (default 30000)
  --inspection-records N       inspection ring size in records (default 10000)
  --inspection-bytes BYTES     inspection ring size in bytes (default 67108864)
  --inspection-body-bytes B    bytes kept of each body (default 65536)
  --no-inspection              do not record requests
  --log-level LEVEL            fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT          auto|json|pretty (default auto: readable lines when standard
                               error is a terminal, JSON lines otherwise)
  --log-requests               log every request (access log)
  --validate-requests          check requests against the OpenAPI descriptions served: a request
                               breaking its operation (parameters, required headers, body
                               schema) gets 422 naming each violation; one without the
                               credentials its security asks for gets 401
  --match-host                 a transaction with requestDsl.host answers only requests whose
                               Host header names that host (any port): several APIs on one port
  --egress LEVEL               where proxyUrl, bypasslive and webhooks may connect: loopback
                               (default: this machine, private ranges, the internet), private
                               (no loopback) or public (the internet only); link-local (cloud
                               metadata 169.254.169.254) and unspecified addresses never
  --egress-allow CIDRS         comma-separated networks reachable whatever --egress says
  --no-wiremock-admin          do not answer WireMock's admin API (/__admin/...) on the mock
                               port and the admin port (docs/wiremock.md); on an interface
                               other than loopback it needs the admin token anyway
  --wiremock-shutdown          let POST /__admin/shutdown stop the runtime (refused otherwise)
  --scenario-store URL         share scenario states with every process naming the same store:
                               redis://[user:pass@]host:port[/db][?prefix=NAME] (rediss:// for
                               TLS; default prefix understudy: one prefix per mock service), or
                               postgres://[user:pass@]host[:port]/db[?prefix=NAME]
Choosing an OpenAPI response: a request header "X-Understudy-Status: 404" (or "Prefer: code=404")
answers with the operation's documented 404 response instead of its main one.`

type FlagValues = Partial<Record<keyof typeof runtimeFlagSpec, string | boolean | undefined>>

const integerFlags: Array<[keyof typeof runtimeFlagSpec, keyof RuntimeOptions]> = [
  ['port', 'port'],
  ['tls-port', 'tlsPort'],
  ['h2c-port', 'h2cPort'],
  ['admin-port', 'adminPort'],
  ['body-limit', 'bodyLimit'],
  ['max-header-size', 'maxHeaderSize'],
  ['proxy-timeout', 'proxyTimeout'],
  ['drain-timeout', 'drainTimeout'],
  ['body-timeout', 'bodyTimeout'],
]

/**
 * Turns parsed flags into validated runtime options (defaults from the options schema). Throws
 * UsageError naming the flag.
 *
 * @example
 * runtimeOptionsFromFlags({ port: '0', 'log-level': 'warn' }).port // 0
 */
export function runtimeOptionsFromFlags(
  values: FlagValues,
  extra: Partial<RuntimeOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
): Readonly<RuntimeOptions> {
  const input: Record<string, unknown> = { ...extra }
  const inspection: Record<string, unknown> = {}
  for (const [flag, key] of integerFlags) {
    const raw = values[flag]
    if (typeof raw === 'string') input[key] = integerOf(flag, raw)
  }
  for (const [flag, key] of [
    ['inspection-records', 'maxRecords'],
    ['inspection-bytes', 'maxBytes'],
    ['inspection-body-bytes', 'maxBodyBytes'],
  ] as const) {
    const raw = values[flag]
    if (typeof raw === 'string') inspection[key] = integerOf(flag, raw)
  }
  if (values['no-inspection'] === true) inspection['enabled'] = false
  if (Object.keys(inspection).length > 0) input['inspection'] = inspection
  if (typeof values.host === 'string') input['host'] = values.host
  const adminToken =
    typeof values['admin-token'] === 'string'
      ? values['admin-token']
      : (env['UNDERSTUDY_ADMIN_TOKEN'] ?? '')
  if (adminToken !== '') {
    input['adminToken'] = adminToken
    // A token makes the admin API safe beyond loopback: it follows --host unless told otherwise.
    if (typeof values.host === 'string') input['adminHost'] = values.host
  }
  if (typeof values['admin-host'] === 'string') input['adminHost'] = values['admin-host']
  if (typeof values['tls-cert'] === 'string') input['tlsCert'] = values['tls-cert']
  if (typeof values['tls-key'] === 'string') input['tlsKey'] = values['tls-key']
  if (typeof values['log-level'] === 'string') input['logLevel'] = values['log-level']
  if (typeof values['log-format'] === 'string') input['logFormat'] = values['log-format']
  if (values['log-requests'] === true) input['logRequests'] = true
  if (values['validate-requests'] === true) input['validateRequests'] = true
  if (values['match-host'] === true) input['matchHost'] = true
  const egress = egressFromFlags(values.egress, values['egress-allow'])
  const portsFile = env[PROTECTED_PORTS_ENV] ?? ''
  input['egress'] = {
    level: egress.level,
    allow: [...egress.allow],
    ...(portsFile === '' ? {} : { protectedPortsFile: portsFile }),
  }
  if (values['no-wiremock-admin'] === true) input['wiremockAdmin'] = false
  if (values['wiremock-shutdown'] === true) input['wiremockShutdown'] = true
  if (typeof values['scenario-store'] === 'string') {
    input['scenarioStore'] = values['scenario-store']
  }
  if ((typeof values['tls-cert'] === 'string') !== (typeof values['tls-key'] === 'string')) {
    throw new UsageError('--tls-cert and --tls-key must be given together')
  }
  try {
    return loadRuntimeOptions(input as Partial<RuntimeOptions>)
  } catch (err) {
    if (isUnderstudyError(err, 'ERR_CONFIG_INVALID')) {
      const detail = err.details?.[0]
      throw new UsageError(
        detail === undefined ? err.message : `${flagOf(detail.path)} ${detail.message}`,
      )
    }
    throw err
  }
}

/** A flag's non-negative integer; UsageError naming the flag otherwise. */
export function integerOf(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw)) {
    throw new UsageError(`--${flag} must be a non-negative integer, not "${raw}"`)
  }
  return Number(raw)
}

/** `/inspection/maxRecords` -> `--inspection-records`, for messages. */
function flagOf(pointer: string): string {
  const names: Record<string, string> = {
    '/port': '--port',
    '/tlsPort': '--tls-port',
    '/h2cPort': '--h2c-port',
    '/adminPort': '--admin-port',
    '/host': '--host',
    '/adminHost': '--admin-host',
    '/adminToken': '--admin-token',
    '/bodyLimit': '--body-limit',
    '/maxHeaderSize': '--max-header-size',
    '/proxyTimeout': '--proxy-timeout',
    '/drainTimeout': '--drain-timeout',
    '/bodyTimeout': '--body-timeout',
    '/logLevel': '--log-level',
    '/logFormat': '--log-format',
    '/inspection/maxRecords': '--inspection-records',
    '/inspection/maxBytes': '--inspection-bytes',
    '/inspection/maxBodyBytes': '--inspection-body-bytes',
  }
  return names[pointer] ?? pointer
}

import { resolve } from 'node:path'
import { loadPlatformOptions, type PlatformFlagOptions } from '../../config/index.js'
import { isUnderstudyError } from '../../errors/index.js'
import { createLogger, LogRing, resolveLogFormat } from '../../log/index.js'
import { exitOnSignals } from '../lifecycle.js'
import { startPlatform } from '../platform.js'
import { UsageError } from '../usage-error.js'
import { egressFromFlags } from '../egress-flags.js'
import { integerOf } from '../runtime-flags.js'
import { parseFlags } from '../flags.js'
import type { CommandIo } from './io.js'
import { prepareDataDir } from '../data-dir.js'
import { requireFeaturePackage } from '../optional-packages.js'

export const platformHelp = `Usage: understudy platform [--host 127.0.0.1] [--port 8080] [--data-dir ./data]

The control plane: every API of the specification on one port (/api/v1, /reports/api/v1,
/api/v4), a SQLite store in the data dir (or PostgreSQL, --store), and a deployer that runs one \`understudy run\` per
deployed mock service. On an empty data dir it creates an account, a workspace, an admin user and
an API key: UNDERSTUDY_API_KEY_ID and UNDERSTUDY_API_KEY_SECRET set the key; without them one is
generated, printed once and written to <data-dir>/bootstrap-credentials.json (mode 0600).

Flags:
  --host HOST              interface of the API (default 127.0.0.1)
  --port, -p N             port of the API (default 8080; 0 picks a free one)
  --data-dir DIR           store, asset files and mock-service documents (default ./data)
  --store URL              keep the records in PostgreSQL (postgres://user:pass@host:5432/db;
                           also UNDERSTUDY_STORE) instead of SQLite in --data-dir; asset files
                           and mock-service documents stay in --data-dir
  --runtime-host HOST      interface the mock services listen on (default: --host)
  --upload-limit BYTES     largest upload (default 67108864)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT      auto|json|pretty (default auto: readable when standard error is a
                           terminal, JSON lines otherwise)
  --smtp-url URL           SMTP server of API-monitoring e-mail notifications
                           (smtp://user:pass@host:port; without it e-mails are skipped)
  --result-retention N     test runs kept per monitoring test (default 100)
  --egress LEVEL           where requests sent on a tenant's behalf (monitoring steps, OAuth
                           token requests, notification webhooks, proxyUrl, bypasslive,
                           postServe webhooks) may connect: loopback (default: this machine,
                           private ranges, the internet), private (no loopback) or public (the
                           internet only). Never: link-local addresses (cloud metadata
                           169.254.169.254), the platform's own port, runtimes' admin APIs
  --egress-allow CIDRS     comma-separated networks reachable whatever --egress says
  --ship-lost-after S      seconds without a heartbeat after which an agent's ship is lost and
                           its mock services are placed on another ship of its harbor (default 15)
  --run-lease S            seconds an agent holds a monitoring run unless it renews the lease
                           (default 30, 1 to 3600; also UNDERSTUDY_RUN_LEASE); a killed agent's
                           or platform instance's run goes to another after it
  --run-wait S             seconds a monitoring run waits for agents that are not there (none of
                           its region, or its agent, claimed or heartbeated meanwhile) before it
                           fails with the reason (default 300, 1 to 86400)
  --agent-call-timeout S   seconds an inspection, verification, recording or scenario call for a
                           mock service on an agent waits for the agent to take it; then 503
                           (default 10)
  --runtime-lease S        seconds a platform instance's lease on each mock service it runs
                           lasts unless renewed (every third of it); several instances on one
                           --store database take over the runtimes of one silent this long
                           (default 15; also UNDERSTUDY_RUNTIME_LEASE)
  --runtime-admin-host H   address of this machine the local runtimes' admin APIs listen on, for
                           other instances on the same --store database to reach them at
                           (default 127.0.0.1: this machine only; also UNDERSTUDY_RUNTIME_ADMIN_HOST)
`

/** The flag of each platform option, for messages. */
const flagOf: Record<string, string> = {
  '/host': '--host',
  '/port': '--port',
  '/dataDir': '--data-dir',
  '/runtimeHost': '--runtime-host',
  '/uploadLimit': '--upload-limit',
  '/logLevel': '--log-level',
  '/logFormat': '--log-format',
  '/smtpUrl': '--smtp-url',
  '/resultRetention': '--result-retention',
  '/store': '--store',
}

/** What a user reads instead of the schema's words, where those say little (a pattern). */
const refusalOf: Record<string, string> = {
  '/smtpUrl': 'must be an smtp:// or smtps:// URL',
  '/store':
    'must be a postgres:// or postgresql:// URL (without it the store is SQLite, in --data-dir)',
}

/**
 * The platform's flags, checked by the platform's options schema (config/options.ts) as a
 * runtime's are by its own. Throws UsageError naming the flag.
 */
function platformFlagOptions(
  values: Record<string, string | boolean | undefined>,
): Readonly<PlatformFlagOptions> {
  const input: Record<string, unknown> = {}
  for (const [pointer, flag] of Object.entries(flagOf)) {
    const raw = values[flag.slice(2)]
    if (typeof raw !== 'string') continue
    const key = pointer.slice(1)
    input[key] = ['port', 'uploadLimit', 'resultRetention'].includes(key)
      ? integerOf(flag.slice(2), raw)
      : raw
  }
  try {
    return loadPlatformOptions(input)
  } catch (err) {
    const detail = isUnderstudyError(err, 'ERR_CONFIG_INVALID') ? err.details?.[0] : undefined
    if (detail === undefined) throw err
    const flag = flagOf[detail.path] ?? detail.path
    throw new UsageError(
      `${flag} ${refusalOf[detail.path] ?? detail.message}, not "${String(input[detail.path.slice(1)])}"`,
    )
  }
}

/** A whole number of seconds from 1 to `max`, or undefined when the flag is not given. */
function secondsFlag(
  raw: string | boolean | undefined,
  flag: string,
  max: number,
  min = 1,
): number | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || +raw < min || +raw > max) {
    throw new UsageError(
      `--${flag} must be a number of seconds from ${min} to ${max}, not "${String(raw)}"`,
    )
  }
  return Number(raw)
}

/**
 * UNDERSTUDY_SCHEDULE_SCALE, a divisor of schedule intervals for tests and drills of several
 * instances (docs/deploy.md#high-availability): 1 to 3600; 60 runs a `1m` schedule every second.
 */
function scheduleScale(env: NodeJS.ProcessEnv): { scheduleScale?: number } {
  const raw = env['UNDERSTUDY_SCHEDULE_SCALE']
  if (raw === undefined || raw === '') return {}
  if (!/^\d+$/.test(raw) || +raw < 1 || +raw > 3600) {
    throw new UsageError(
      `UNDERSTUDY_SCHEDULE_SCALE must be a whole number from 1 to 3600, not "${raw}"`,
    )
  }
  return { scheduleScale: Number(raw) }
}

/** `understudy platform`: resolves once listening; the process then lives until a signal. */
export async function runPlatformCommand(
  args: string[],
  io: CommandIo,
): Promise<number | 'running'> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string', short: 'p' },
      'data-dir': { type: 'string' },
      'runtime-host': { type: 'string' },
      'upload-limit': { type: 'string' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      'smtp-url': { type: 'string' },
      'result-retention': { type: 'string' },
      store: { type: 'string' },
      egress: { type: 'string' },
      'egress-allow': { type: 'string' },
      'ship-lost-after': { type: 'string' },
      'run-lease': { type: 'string' },
      'run-wait': { type: 'string' },
      'agent-call-timeout': { type: 'string' },
      'runtime-lease': { type: 'string' },
      'runtime-admin-host': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  })
  if (values.help === true) {
    io.stdout.write(platformHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  // UNDERSTUDY_STORE stands in for --store (a deployment's environment names its database).
  const fromEnv = process.env['UNDERSTUDY_STORE']
  const flags = platformFlagOptions(
    values.store === undefined && fromEnv !== undefined && fromEnv !== ''
      ? { ...values, store: fromEnv }
      : values,
  )
  if (flags.store != null) requireFeaturePackage('pg')
  const egress = egressFromFlags(values.egress, values['egress-allow'])
  const lostAfter = secondsFlag(values['ship-lost-after'], 'ship-lost-after', 3600, 2)
  const runLease = secondsFlag(
    values['run-lease'] ?? nonEmpty(process.env['UNDERSTUDY_RUN_LEASE']),
    'run-lease',
    3600,
  )
  const runWait = secondsFlag(values['run-wait'], 'run-wait', 86_400)
  const callTimeout = secondsFlag(values['agent-call-timeout'], 'agent-call-timeout', 300)
  const runtimeLease = secondsFlag(
    values['runtime-lease'] ?? nonEmpty(process.env['UNDERSTUDY_RUNTIME_LEASE']),
    'runtime-lease',
    3600,
    2,
  )
  const runtimeAdminHost = adminHostFlag(
    values['runtime-admin-host'] ?? nonEmpty(process.env['UNDERSTUDY_RUNTIME_ADMIN_HOST']),
  )
  const options = {
    host: flags.host,
    egress,
    port: flags.port,
    dataDir: resolve(flags.dataDir),
    runtimeHost: flags.runtimeHost ?? flags.host,
    jsonLimit: 16 * 1024 * 1024,
    uploadLimit: flags.uploadLimit,
    ...(flags.store == null ? {} : { store: flags.store }),
    ...(process.env['UNDERSTUDY_API_KEY_ID'] === undefined
      ? {}
      : { apiKeyId: process.env['UNDERSTUDY_API_KEY_ID'] }),
    ...(process.env['UNDERSTUDY_API_KEY_SECRET'] === undefined
      ? {}
      : { apiKeySecret: process.env['UNDERSTUDY_API_KEY_SECRET'] }),
    ...(lostAfter === undefined ? {} : { shipLostAfterMs: lostAfter * 1000 }),
    ...(callTimeout === undefined ? {} : { agentCallTimeoutMs: callTimeout * 1000 }),
    ...(runtimeLease === undefined ? {} : { runtimeLeaseMs: runtimeLease * 1000 }),
    ...(runtimeAdminHost === undefined ? {} : { runtimeAdminHost }),
    monitor: {
      ...scheduleScale(process.env),
      resultRetention: flags.resultRetention,
      ...(runLease === undefined ? {} : { leaseMs: runLease * 1000 }),
      ...(runWait === undefined ? {} : { runWaitMs: runWait * 1000 }),
      ...(flags.smtpUrl == null ? {} : { smtpUrl: flags.smtpUrl }),
    },
  }
  prepareDataDir(options.dataDir)
  const logRing = new LogRing(10_000)
  const log = createLogger({
    level: flags.logLevel,
    format: resolveLogFormat(flags.logFormat, process.stderr),
    ring: logRing,
  })
  const platform = await startPlatform(options, log)
  let ready = `listening on ${platform.url}\n`
  const key = platform.bootstrap.apiKey
  if (key !== null && key.generated) {
    ready += `bootstrap API key (shown once): ${key.id}:${key.secret} (also in ${platform.bootstrap.credentialsFile ?? 'the data dir'})\n`
  }
  io.stdout.write(ready)
  log.info(
    {
      url: platform.url,
      dataDir: options.dataDir,
      workspaceId: platform.bootstrap.workspaceId,
      created: platform.bootstrap.created,
    },
    'platform listening',
  )
  exitOnSignals(platform.close, log)
  return 'running'
}

/**
 * `--runtime-admin-host`: an address other instances can reach, so not a wildcard (the runtime
 * would announce an admin URL nobody can call).
 */
function adminHostFlag(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  if (!/^[A-Za-z0-9.:_-]{1,253}$/.test(raw) || ['0.0.0.0', '::', '[::]'].includes(raw)) {
    throw new UsageError(
      `--runtime-admin-host must be an address of this machine that other instances reach (not a wildcard), not "${raw}"`,
    )
  }
  return raw
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { readFileSync } from 'node:fs'
import {
  KubernetesRunner,
  PortPool,
  ProcessRunner,
  startAgent,
  startRegionWorker,
  type MockRunner,
} from '../../agent/index.js'
import { connectCluster, KubernetesDriver } from '../../deploy/index.js'
import { createLogger, resolveLogFormat, type Logger } from '../../log/index.js'
import { prepareDataDir } from '../data-dir.js'
import { parseFlags } from '../flags.js'
import { exitOnSignals } from '../lifecycle.js'
import { UsageError } from '../usage-error.js'
import type { CommandIo } from './io.js'

export const agentHelp = `Usage: understudy agent --platform URL --harbor HARBOR --ship SHIP [--token T]
                        [--advertise-host HOST] [--port-range A-B] [--data-dir DIR]
                        [--driver process|kubernetes] [--monitor --region R]

An agent (a ship of a private location, a harbor): it registers with the platform, heartbeats,
pulls the mock services placed on its ship and runs them here, with the platform's own deployer
code (one \`understudy run\` per mock service) or on Kubernetes. It opens every connection to the
platform, so it works behind NAT and firewalls. Prints "agent ready" once the platform accepted
its first heartbeat. docs/deploy.md#agents-and-locations.

Flags:
  --platform URL           the platform's base URL (http:// or https://)
  --harbor HARBOR          the private location's id (harbor-...)
  --ship SHIP              the ship's id (ship-...), created with POST /api/v4/private-locations/{harbor}/servers
  --token T                the ship's token (shown once when it was created); default the
                           UNDERSTUDY_AGENT_TOKEN environment variable
  --advertise-host HOST    host name clients reach the mock services at (default: this machine's
                           name); with 127.0.0.1 or localhost the runtimes listen on loopback only,
                           otherwise on every interface
  --port-range A-B         ports the mock services get (default: any free port)
  --data-dir DIR           documents and the last desired state (default ./agent-data)
  --driver NAME            process (default: local \`understudy run\` processes) or kubernetes
                           (UNDERSTUDY_K8S_NAMESPACE, UNDERSTUDY_K8S_IMAGE,
                           UNDERSTUDY_K8S_INGRESS_DOMAIN; in-cluster or KUBECONFIG)
  --monitor --region R     also run the monitoring runs queued for region R
  --heartbeat SECONDS      seconds between heartbeats (default 5, 1 to 60)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT      auto|json|pretty (default auto)
`

interface AgentFlags {
  platform: string
  harborId: string
  shipId: string
  token: string
  advertiseHost: string
  portRange: readonly [number, number] | null
  dataDir: string
  driver: 'process' | 'kubernetes'
  region: string | null
  heartbeatMs: number
  logLevel: string
  logFormat: string
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

function required(values: Record<string, unknown>, flag: string): string {
  const raw = values[flag]
  if (typeof raw !== 'string' || raw.trim() === '') throw new UsageError(`--${flag} is required`)
  return raw.trim()
}

/** The agent's flags, checked: one UsageError (exit 2) naming the first bad one. */
export function agentFlagsOf(
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): AgentFlags {
  const platform = required(values, 'platform')
  let url: URL
  try {
    url = new URL(platform)
  } catch {
    throw new UsageError(`--platform must be an http:// or https:// URL, not "${platform}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--platform must be an http:// or https:// URL, not "${platform}"`)
  }
  const harborId = required(values, 'harbor')
  if (!/^harbor-[A-Za-z0-9-]{1,190}$/.test(harborId)) {
    throw new UsageError(`--harbor must be a private location id (harbor-...), not "${harborId}"`)
  }
  if (harborId === 'harbor-local') {
    throw new UsageError(
      "--harbor harbor-local is the platform's own location: it needs no agent; create a private location (POST /api/v4/private-locations)",
    )
  }
  const shipId = required(values, 'ship')
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/.test(shipId)) {
    throw new UsageError(`--ship must be a ship id (ship-...), not "${shipId}"`)
  }
  const token = tokenOf(values, env)
  const driver = values['driver'] ?? 'process'
  if (driver !== 'process' && driver !== 'kubernetes') {
    throw new UsageError(`--driver must be process or kubernetes, not "${String(driver)}"`)
  }
  const portRange = portRangeOf(values['port-range'])
  if (portRange !== null && driver === 'kubernetes') {
    throw new UsageError(
      '--port-range applies to --driver process only: the cluster gives the ports',
    )
  }
  const monitor = values['monitor'] === true
  const region = typeof values['region'] === 'string' ? values['region'].trim() : null
  if (monitor && (region === null || region === '')) {
    throw new UsageError('--monitor needs --region R (the region whose monitoring runs it claims)')
  }
  if (!monitor && region !== null) throw new UsageError('--region goes with --monitor')
  if (region !== null && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(region)) {
    throw new UsageError(`--region must be a region name (letters, digits, - _ .), not "${region}"`)
  }
  const heartbeat = values['heartbeat'] ?? '5'
  if (
    typeof heartbeat !== 'string' ||
    !/^\d+$/.test(heartbeat) ||
    +heartbeat < 1 ||
    +heartbeat > 60
  ) {
    throw new UsageError(
      `--heartbeat must be a number of seconds from 1 to 60, not "${String(heartbeat)}"`,
    )
  }
  const advertise = values['advertise-host']
  if (
    advertise !== undefined &&
    (typeof advertise !== 'string' || !/^[A-Za-z0-9.:[\]-]{1,255}$/.test(advertise))
  ) {
    throw new UsageError(
      `--advertise-host must be a host name or address, not "${String(advertise)}"`,
    )
  }
  return {
    platform: url.toString().replace(/\/+$/, ''),
    harborId,
    shipId,
    token,
    advertiseHost: typeof advertise === 'string' ? advertise : hostname(),
    portRange,
    dataDir: resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : './agent-data'),
    driver,
    region: monitor ? region : null,
    heartbeatMs: Number(heartbeat) * 1000,
    logLevel: typeof values['log-level'] === 'string' ? values['log-level'] : 'info',
    logFormat: typeof values['log-format'] === 'string' ? values['log-format'] : 'auto',
  }
}

/**
 * The ship's token. An API key (UNDERSTUDY_API_KEY_ID/SECRET) is refused: it names a user, not a
 * ship, and would let an agent read more than its own work.
 */
function tokenOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): string {
  const flag = values['token']
  if (typeof flag === 'string') {
    if (flag.trim() === '') throw new UsageError('--token is empty')
    return flag.trim()
  }
  const fromEnv = env['UNDERSTUDY_AGENT_TOKEN']
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim()
  if (
    (env['UNDERSTUDY_API_KEY_ID'] ?? '') !== '' ||
    (env['UNDERSTUDY_API_KEY_SECRET'] ?? '') !== ''
  ) {
    throw new UsageError(
      "an API key (UNDERSTUDY_API_KEY_ID/SECRET) cannot act as a ship: pass the ship's token with --token or UNDERSTUDY_AGENT_TOKEN (shown once by POST /api/v4/private-locations/{harborId}/servers)",
    )
  }
  throw new UsageError("--token (or UNDERSTUDY_AGENT_TOKEN) is required: the ship's token")
}

function portRangeOf(raw: unknown): readonly [number, number] | null {
  if (raw === undefined) return null
  const match = typeof raw === 'string' ? /^(\d{1,5})-(\d{1,5})$/.exec(raw) : null
  const from = Number(match?.[1])
  const to = Number(match?.[2])
  if (match === null || from < 1 || to > 65535 || from > to) {
    throw new UsageError(`--port-range must be A-B with 1 <= A <= B <= 65535, not "${String(raw)}"`)
  }
  return [from, to]
}

async function runnerOf(flags: AgentFlags, log: Logger): Promise<MockRunner> {
  if (flags.driver === 'kubernetes') {
    const image = process.env['UNDERSTUDY_K8S_IMAGE']
    if (image === undefined || image === '') {
      throw new UsageError(
        '--driver kubernetes needs UNDERSTUDY_K8S_IMAGE (the project image the pods run)',
      )
    }
    const cluster = await connectCluster({ kind: 'default' })
    const ingress = process.env['UNDERSTUDY_K8S_INGRESS_DOMAIN']
    return new KubernetesRunner(
      new KubernetesDriver(cluster, {
        namespace: process.env['UNDERSTUDY_K8S_NAMESPACE'] ?? 'default',
        image,
        ingressDomain: ingress === undefined || ingress === '' ? null : ingress,
      }),
    )
  }
  const loopback = LOOPBACK.has(flags.advertiseHost)
  return new ProcessRunner({
    dataDir: flags.dataDir,
    log,
    host: loopback ? '127.0.0.1' : '0.0.0.0',
    endpointHost: flags.advertiseHost,
  })
}

function version(): string {
  const pkg = JSON.parse(
    readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8'),
  ) as { version: string }
  return pkg.version
}

/** `understudy agent`: resolves once the platform accepted the first heartbeat; then lives until a signal. */
export async function runAgentCommand(args: string[], io: CommandIo): Promise<number | 'running'> {
  const { values, positionals } = parseFlags({
    args,
    options: {
      platform: { type: 'string' },
      harbor: { type: 'string' },
      ship: { type: 'string' },
      token: { type: 'string' },
      'advertise-host': { type: 'string' },
      'port-range': { type: 'string' },
      'data-dir': { type: 'string' },
      driver: { type: 'string' },
      monitor: { type: 'boolean' },
      region: { type: 'string' },
      heartbeat: { type: 'string' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  })
  if (values.help === true) {
    io.stdout.write(agentHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  const flags = agentFlagsOf(values, process.env)
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']
  if (!levels.includes(flags.logLevel)) {
    throw new UsageError(`--log-level must be one of ${levels.join(', ')}, not "${flags.logLevel}"`)
  }
  if (!['auto', 'json', 'pretty'].includes(flags.logFormat)) {
    throw new UsageError(`--log-format must be auto, json or pretty, not "${flags.logFormat}"`)
  }
  prepareDataDir(flags.dataDir)
  const log = createLogger({
    level: flags.logLevel as 'info',
    format: resolveLogFormat(flags.logFormat as 'auto', process.stderr),
  })
  const runner = await runnerOf(flags, log)
  const agent = startAgent({
    platform: flags.platform,
    harborId: flags.harborId,
    shipId: flags.shipId,
    token: flags.token,
    dataDir: flags.dataDir,
    advertiseHost: flags.advertiseHost,
    version: version(),
    runner,
    ports: new PortPool(
      flags.portRange,
      LOOPBACK.has(flags.advertiseHost) ? '127.0.0.1' : '0.0.0.0',
    ),
    log,
    heartbeatMs: flags.heartbeatMs,
    ...(flags.region === null ? {} : { regions: [flags.region] }),
  })
  try {
    await agent.ready
  } catch (err) {
    await agent.stop()
    throw err
  }
  const monitor =
    flags.region === null
      ? null
      : await startRegionWorker({
          platform: flags.platform,
          harborId: flags.harborId,
          shipId: flags.shipId,
          token: flags.token,
          region: flags.region,
          dataDir: flags.dataDir,
          log,
        }).catch(async (err: unknown) => {
          await agent.stop()
          throw err
        })
  io.stdout.write('agent ready\n')
  log.info(
    {
      platform: flags.platform,
      harborId: flags.harborId,
      shipId: flags.shipId,
      driver: flags.driver,
    },
    'agent ready',
  )
  exitOnSignals(async () => {
    await monitor?.stop()
    await agent.stop()
  }, log)
  return 'running'
}

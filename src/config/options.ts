import type { JSONSchemaType } from 'ajv'

/** Log levels, repeated here because config is a leaf and may not import src/log. */
export type OptionsLogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/** Bounds of the inspection ring (docs/decisions.md#inspection-ring). */
export interface InspectionOptions {
  enabled: boolean
  maxRecords: number
  maxBytes: number
  maxBodyBytes: number
}

/** Levels of the egress policy, repeated here because config is a leaf and may not import src/net. */
type OptionsEgressLevel = 'loopback' | 'private' | 'public'

/** What a runtime may send to on a tenant's behalf (`proxyUrl`, `bypasslive`, webhooks): docs/security.md "Egress". */
export interface EgressOptions {
  level: OptionsEgressLevel
  /** Networks reachable whatever the level (`10.1.0.0/16`, `fd00::/8`, one address). */
  allow: string[]
  /** A file of ports never reachable on this machine, kept by the platform that started the runtime. */
  protectedPortsFile?: string | null
}

/**
 * Everything a runtime (`understudy serve` and `understudy run`) can be told. `cli/` builds it from
 * flags; `loadRuntimeOptions` fills the defaults, which live only in the schema below.
 */
export interface RuntimeOptions {
  host: string
  port: number
  /** HTTPS listener speaking h2 and http/1.1 by ALPN; null = none. */
  tlsPort?: number | null
  /** PEM files; both absent means a self-signed certificate generated at start-up. */
  tlsCert?: string | null
  tlsKey?: string | null
  /** Cleartext HTTP/2 (prior knowledge) listener; null = none. */
  h2cPort?: number | null
  adminHost: string
  /** Admin listener (health, config swap, inspection, log); null = none. */
  adminPort?: number | null
  /** Bearer token the admin API then requires; without one it stays on loopback. */
  adminToken?: string | null
  bodyLimit: number
  /** Largest request head (request line and headers). */
  maxHeaderSize: number
  proxyTimeout: number
  drainTimeout: number
  /** Milliseconds a request body may take to arrive in full; 408 past it. */
  bodyTimeout: number
  inspection: InspectionOptions
  egress: EgressOptions
  logLevel: OptionsLogLevel
  /** `auto`: readable lines when standard error is a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty'
  logRequests: boolean
  /** Check requests against the OpenAPI descriptions served (422 naming each violation). */
  validateRequests: boolean
  /** Match each transaction's `requestDsl.host` against the Host header. */
  matchHost: boolean
  /** WireMock's admin API (`/__admin/...`) on the mock port and the admin port (docs/wiremock.md). */
  wiremockAdmin: boolean
  /** Whether `POST /__admin/shutdown` may stop the runtime (refused with 403 otherwise). */
  wiremockShutdown: boolean
  watch: boolean
  include: string[]
  exclude: string[]
  /** Scenario states shared with other processes (`redis://...`, `postgres://...`); null: this process's own. */
  scenarioStore?: string | null
}

const port = { type: 'integer', minimum: 0, maximum: 65535 } as const
const nullablePort = { type: 'integer', minimum: 0, maximum: 65535, nullable: true } as const
const nullablePath = { type: 'string', minLength: 1, nullable: true } as const
const logLevel = {
  type: 'string',
  enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  default: 'info',
} as const
const logFormat = { type: 'string', enum: ['auto', 'json', 'pretty'], default: 'auto' } as const

/** The schema of RuntimeOptions; each default carries its unit. */
export const runtimeOptionsSchema: JSONSchemaType<RuntimeOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    port: { ...port, default: 8080 },
    tlsPort: nullablePort,
    tlsCert: nullablePath,
    tlsKey: nullablePath,
    h2cPort: nullablePort,
    adminHost: { type: 'string', minLength: 1, default: '127.0.0.1' },
    adminPort: nullablePort,
    adminToken: { type: 'string', minLength: 1, nullable: true },
    // bytes: 10 MiB
    bodyLimit: { type: 'integer', minimum: 0, default: 10 * 1024 * 1024 },
    // bytes: 64 KiB, four times Node's default, so that recorded traffic with long URLs or
    // cookies replays (a 17 KB analytics URL in a real HAR would get 431 otherwise)
    maxHeaderSize: {
      type: 'integer',
      minimum: 1024,
      maximum: 16 * 1024 * 1024,
      default: 64 * 1024,
    },
    // milliseconds an upstream (proxyUrl, bypasslive) may take to answer
    proxyTimeout: { type: 'integer', minimum: 1, default: 30_000 },
    // milliseconds SIGTERM waits for in-flight requests before closing connections
    drainTimeout: { type: 'integer', minimum: 0, default: 10_000 },
    // milliseconds from a request's head to the end of its body; 408 ERR_SERVE_BODY_TIMEOUT past it
    bodyTimeout: { type: 'integer', minimum: 1, default: 30_000 },
    inspection: {
      type: 'object',
      additionalProperties: false,
      // An empty object, which ajv's useDefaults then fills member by member.
      default: {} as InspectionOptions,
      properties: {
        enabled: { type: 'boolean', default: true },
        // records
        maxRecords: { type: 'integer', minimum: 1, default: 10_000 },
        // bytes: 64 MiB
        maxBytes: { type: 'integer', minimum: 1024, default: 64 * 1024 * 1024 },
        // bytes kept of each body: 64 KiB
        maxBodyBytes: { type: 'integer', minimum: 0, default: 64 * 1024 },
      },
      required: ['enabled', 'maxRecords', 'maxBytes', 'maxBodyBytes'],
    },
    egress: {
      type: 'object',
      additionalProperties: false,
      default: {} as EgressOptions,
      properties: {
        // loopback: this machine, private ranges and the internet; never link-local (cloud metadata)
        level: { type: 'string', enum: ['loopback', 'private', 'public'], default: 'loopback' },
        allow: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        protectedPortsFile: nullablePath,
      },
      required: ['level', 'allow'],
    },
    logLevel,
    logFormat,
    logRequests: { type: 'boolean', default: false },
    validateRequests: { type: 'boolean', default: false },
    matchHost: { type: 'boolean', default: false },
    wiremockAdmin: { type: 'boolean', default: true },
    wiremockShutdown: { type: 'boolean', default: false },
    watch: { type: 'boolean', default: false },
    include: { type: 'array', items: { type: 'string' }, default: [] },
    exclude: { type: 'array', items: { type: 'string' }, default: [] },
    scenarioStore: {
      type: 'string',
      pattern: '^(rediss?|postgres(ql)?)://\\S+$',
      nullable: true,
      default: null,
    },
  },
  required: [
    'host',
    'port',
    'adminHost',
    'bodyLimit',
    'maxHeaderSize',
    'proxyTimeout',
    'drainTimeout',
    'bodyTimeout',
    'inspection',
    'egress',
    'logLevel',
    'logFormat',
    'logRequests',
    'validateRequests',
    'matchHost',
    'wiremockAdmin',
    'wiremockShutdown',
    'watch',
    'include',
    'exclude',
  ],
}

/**
 * What `understudy platform` can be told by its flags (the key and the egress policy come from
 * the environment and the shared egress flags). `cli/` builds it from flags; `loadPlatformOptions`
 * fills the defaults, which live only in the schema below, and checks it as `loadRuntimeOptions`
 * checks a runtime's.
 */
export interface PlatformFlagOptions {
  host: string
  port: number
  dataDir: string
  /** Interface the mock services' runtimes listen on; null: `host`. */
  runtimeHost?: string | null
  /** Largest upload (multipart) body. */
  uploadLimit: number
  logLevel: OptionsLogLevel
  logFormat: 'auto' | 'json' | 'pretty'
  /** SMTP server of API-monitoring e-mail notifications; null: e-mails are skipped. */
  smtpUrl?: string | null
  /** Test runs kept per monitoring test. */
  resultRetention: number
  /** A PostgreSQL database to keep the records in (`postgres://...`); null: SQLite in `dataDir`. */
  store?: string | null
}

/** The schema of PlatformFlagOptions; each default carries its unit. */
export const platformOptionsSchema: JSONSchemaType<PlatformFlagOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    port: { ...port, default: 8080 },
    dataDir: { type: 'string', minLength: 1, default: './data' },
    runtimeHost: { type: 'string', minLength: 1, nullable: true },
    // bytes: 64 MiB, at most 1 GiB (an upload is held in memory while it is imported)
    uploadLimit: {
      type: 'integer',
      minimum: 0,
      maximum: 1024 * 1024 * 1024,
      default: 64 * 1024 * 1024,
    },
    logLevel,
    logFormat,
    smtpUrl: { type: 'string', pattern: '^smtps?://\\S+$', nullable: true },
    // runs per monitoring test
    resultRetention: { type: 'integer', minimum: 1, maximum: 100_000, default: 100 },
    store: { type: 'string', pattern: '^postgres(ql)?://\\S+$', nullable: true },
  },
  required: ['host', 'port', 'dataDir', 'uploadLimit', 'logLevel', 'logFormat', 'resultRetention'],
}

/**
 * The variable naming the protected-ports file to the runtimes: the platform sets it for the
 * runtimes it starts, and `serve`/`run` read it (src/cli/runtime-flags.ts).
 */
export const PROTECTED_PORTS_ENV = 'UNDERSTUDY_EGRESS_PROTECTED_PORTS_FILE'

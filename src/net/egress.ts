import { lookup } from 'node:dns/promises'
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { createError } from '../errors/index.js'
import {
  classifyAddress,
  compileCidr,
  inCidr,
  type AddressClass,
  type CompiledCidr,
} from './address.js'

/**
 * How far inside the network a tenant's requests may go (docs/security.md "Egress"), from the
 * most open: `loopback` (this machine, private ranges and the internet), `private` (private ranges
 * and the internet) and `public` (the internet only).
 */
export const egressLevels = ['loopback', 'private', 'public'] as const
export type EgressLevel = (typeof egressLevels)[number]

/** The default: a self-hosted team tool whose examples mock services on localhost. */
export const DEFAULT_EGRESS_LEVEL: EgressLevel = 'loopback'

/**
 * An egress policy as plain data, so that it travels to worker threads (webhooks) and to the
 * runtimes the platform starts.
 */
export interface EgressSettings {
  level: EgressLevel
  /** Networks (`10.1.0.0/16`, `fd00::/8`, one address) reachable whatever the level. */
  allow: readonly string[]
  /** Ports refused on every address of this machine (the platform's own, runtimes' admin APIs). */
  protectedPorts: readonly number[]
  /**
   * A file of more such ports, one per line, read again whenever it changes: the platform keeps
   * in it the admin port of every runtime it starts, which the runtimes' own senders must refuse.
   */
  protectedPortsFile: string | null
}

/** The classes each level lets through; link-local, unspecified and reserved addresses never pass. */
const allowedClasses: Record<EgressLevel, ReadonlySet<AddressClass>> = {
  loopback: new Set(['loopback', 'private', 'public']),
  private: new Set(['private', 'public']),
  public: new Set(['public']),
}

/** How long the list of this machine's addresses is kept before it is read again. */
const INTERFACES_TTL_MS = 5000

/**
 * The egress check every request sent on a tenant's behalf goes through: runner steps (and what
 * their scripts changed), OAuth token requests, notifications, `proxyUrl`, `bypasslive` and
 * webhooks. It is applied to the address about to be connected, after name resolution, by the
 * connector of the HTTP client (egressConnector), so that neither a DNS answer that changes
 * between a check and the connection nor a redirect to another host gets around it.
 *
 * @example
 * const policy = new EgressPolicy({ level: 'public', allow: [], protectedPorts: [8080], protectedPortsFile: null })
 * policy.refusal('127.0.0.1', 9000) // 'Refused by the egress policy "public": 127.0.0.1 is a loopback address'
 */
export class EgressPolicy {
  readonly settings: Readonly<EgressSettings>
  readonly #allowed: ReadonlySet<AddressClass>
  readonly #allow: CompiledCidr[]
  readonly #ports: Set<number>
  #fileKey = ''
  #filePorts: ReadonlySet<number> = new Set()
  #interfaces: ReadonlySet<string> = new Set()
  #interfacesAt = 0

  constructor(settings: EgressSettings) {
    this.settings = settings
    this.#allowed = allowedClasses[settings.level]
    this.#allow = settings.allow.map((text) => {
      const cidr = compileCidr(text)
      if (cidr === null) {
        throw createError('ERR_CONFIG_INVALID', [
          `"${text}" is not a network (a.b.c.d/n, x::/n or one address)`,
        ])
      }
      return cidr
    })
    this.#ports = new Set(settings.protectedPorts)
  }

  /**
   * The policy as data, with the ports protected so far, for a worker thread to make its own.
   *
   * @example
   * new Worker(url, { workerData: { egress: policy.snapshot() } })
   */
  snapshot(): EgressSettings {
    return { ...this.settings, allow: [...this.settings.allow], protectedPorts: [...this.#ports] }
  }

  /** Adds a port refused on this machine's addresses (a listener opened after the policy was made). */
  protect(port: number): void {
    this.#ports.add(port)
  }

  /**
   * Why connecting to `address:port` is refused, as the message of ERR_NET_EGRESS_REFUSED, or null
   * when it is allowed.
   *
   * @example
   * new EgressPolicy({ level: 'loopback', allow: [], protectedPorts: [], protectedPortsFile: null }).refusal('169.254.169.254', 80)
   * // 'Refused by the egress policy "loopback": 169.254.169.254 is a link-local address (cloud metadata lives there)'
   */
  refusal(address: string, port: number): string | null {
    const error = this.#refused(address, port)
    return error === null
      ? null
      : createError('ERR_NET_EGRESS_REFUSED', [this.settings.level, error]).message
  }

  /**
   * Resolves `hostname` and gives those of its addresses the policy allows, in the resolver's
   * order (the ones to connect to); throws ERR_NET_EGRESS_REFUSED naming the policy when there is
   * none, and the resolver's error when the name does not resolve.
   *
   * @example
   * await policy.allowedAddresses('localhost', 3000) // ['127.0.0.1', '::1'] (under `loopback`)
   */
  async allowedAddresses(hostname: string, port: number): Promise<string[]> {
    const host =
      hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
    const addresses =
      isIP(host) !== 0
        ? [host]
        : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    const allowed: string[] = []
    let first: string | null = null
    for (const address of addresses) {
      const reason = this.#refused(address, port)
      if (reason === null) allowed.push(address)
      else first ??= address === host ? reason : `${host} resolves to ${reason}`
    }
    if (allowed.length > 0) return allowed
    throw createError('ERR_NET_EGRESS_REFUSED', [
      this.settings.level,
      first ?? `${host} has no address`,
    ])
  }

  #refused(address: string, port: number): string | null {
    const kind = classifyAddress(address)
    if (kind === null) return `${address} is not an IP address`
    if (this.#isLocal(address, kind) && this.#protected(port)) {
      return `${address}:${port} is the platform's own port or a runtime's admin API`
    }
    if (this.#allowed.has(kind) || this.#allow.some((cidr) => inCidr(address, cidr))) return null
    const hint = kind === 'link-local' ? ' (cloud metadata lives there)' : ''
    return `${address} is ${kind === 'unspecified' ? 'an unspecified' : `a ${kind}`} address${hint}`
  }

  #protected(port: number): boolean {
    return this.#ports.has(port) || this.#portsOfFile().has(port)
  }

  /** Loopback, unspecified (which reaches this machine) or one of this machine's interfaces. */
  #isLocal(address: string, kind: AddressClass): boolean {
    if (kind === 'loopback' || kind === 'unspecified') return true
    const now = Date.now()
    if (now - this.#interfacesAt > INTERFACES_TTL_MS) {
      const own = new Set<string>()
      for (const list of Object.values(networkInterfaces())) {
        for (const entry of list ?? []) own.add(entry.address.toLowerCase())
      }
      this.#interfaces = own
      this.#interfacesAt = now
    }
    const plain = address.replace(/^\[|\]$/g, '').toLowerCase()
    return this.#interfaces.has(plain) || this.#interfaces.has(plain.replace(/^::ffff:/, ''))
  }

  /**
   * The ports of `protectedPortsFile`, read again when the file changes (a stat per connection,
   * not per request: connections are pooled).
   */
  #portsOfFile(): ReadonlySet<number> {
    const file = this.settings.protectedPortsFile
    if (file === null) return this.#filePorts
    const stat = statSync(file, { throwIfNoEntry: false })
    const key = stat === undefined ? '' : `${stat.ino}:${stat.mtimeMs}:${stat.size}`
    if (key !== this.#fileKey) {
      this.#fileKey = key
      this.#filePorts = stat === undefined ? new Set() : readPorts(file)
    }
    return this.#filePorts
  }
}

/**
 * Writes the protected ports file atomically (a reader never sees half of it).
 *
 * @example
 * writeProtectedPorts('/data/run/protected-ports', [8080, 41234])
 */
export function writeProtectedPorts(file: string, ports: Iterable<number>): void {
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, [...new Set(ports)].sort((a, b) => a - b).join('\n') + '\n', {
    mode: 0o644,
  })
  renameSync(temporary, file)
}

function readPorts(file: string): ReadonlySet<number> {
  const ports = new Set<number>()
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const port = Number(line.trim())
      if (line.trim() !== '' && Number.isInteger(port)) ports.add(port)
    }
  } catch {
    // Gone between the stat and the read: the next connection reads it again.
  }
  return ports
}

/**
 * The policy of a self-hosted team tool with nothing protected: what a runtime started without
 * `--egress` (and library code without a policy) applies.
 *
 * @example
 * const policy = defaultEgressPolicy()
 */
export function defaultEgressPolicy(): EgressPolicy {
  return new EgressPolicy({
    level: DEFAULT_EGRESS_LEVEL,
    allow: [],
    protectedPorts: [],
    protectedPortsFile: null,
  })
}

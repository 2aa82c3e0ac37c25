import { readFileSync } from 'node:fs'
import { LOCAL_LOCATION } from '../store/index.js'

/**
 * The platform's one location: the local runtime host where its deployer starts mock services
 * (docs/decisions.md#one-location). Its id starts with `harbor-`, as private locations do in the
 * administration specification, and it carries the fields clients read from /api/v1
 * (`/workspaces/{ws}/locations`: `harborId`, `shipId`, `shipName`, `kubernetes`,
 * `metadata.portRange`) and /api/v4 (workspace detail: `purposes.serviceMock`, `limits`). Mock
 * service records answer these ids when none was set.
 */
export const LOCAL_HARBOR_ID = LOCAL_LOCATION.id
export const LOCAL_SHIP_ID = 'ship-local'

/** Ports of the local deployer: it asks the OS for ephemeral ones, so the range is the kernel's. */
function ephemeralPortRange(): string {
  try {
    const [from, to] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
    if (from !== undefined && to !== undefined && /^\d+$/.test(from) && /^\d+$/.test(to)) {
      return `${from}-${to}`
    }
  } catch {
    // not Linux: the IANA dynamic range, which Windows and macOS use
  }
  return '49152-65535'
}

let kernelPortRange: string | null = null

/**
 * The local location descriptor.
 *
 * @example
 * localLocation().id // 'harbor-local'
 * localLocation().metadata.portRange // '32768-60999'
 */
export function localLocation(
  options: { portRange?: readonly [number, number] | null; maxMockServices?: number } = {},
) {
  kernelPortRange ??= ephemeralPortRange()
  const given = options.portRange ?? null
  return {
    id: LOCAL_HARBOR_ID,
    harborId: LOCAL_HARBOR_ID,
    shipId: LOCAL_SHIP_ID,
    shipName: LOCAL_LOCATION.name,
    title: LOCAL_LOCATION.name,
    name: LOCAL_LOCATION.name,
    provider: LOCAL_LOCATION.provider,
    kubernetes: false,
    sandbox: false,
    limits: {
      threadsPerEngine: 0,
      concurrency: options.maxMockServices ?? -1,
      engines: -1,
      duration: -1,
    },
    capabilities: { dedicatedIps: false, isPrivileged: false },
    purposes: { load: false, functional: false, grid: false, serviceMock: true },
    metadata: { portRange: given === null ? kernelPortRange : `${given[0]}-${given[1]}` },
  }
}

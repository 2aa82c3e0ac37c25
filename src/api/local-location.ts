import { readFileSync } from 'node:fs'

/**
 * The platform's one location: the host its local deployer starts runtimes on. Private
 * locations of the product (a harbor with ships) map onto it: `harborId` and `shipId` are the
 * fixed ids below, which mock service records answer when none was set (issue 7). Shared by v1
 * (`/workspaces/{ws}/locations`) and v4 helpers.
 */
export interface LocalLocation {
  id: string
  harborId: string
  shipId: string
  shipName: string
  name: string
  kubernetes: false
  metadata: { portRange: string }
}

export const LOCAL_HARBOR_ID = 'local'
export const LOCAL_SHIP_ID = 'local'

/** Ports of the local deployer: it asks the OS for ephemeral ones, so the range is the kernel's. */
function ephemeralPortRange (): string {
  try {
    const [from, to] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)
    if (from !== undefined && to !== undefined && /^\d+$/.test(from) && /^\d+$/.test(to)) return `${from}-${to}`
  } catch {
    // not Linux: the IANA dynamic range, which Windows and macOS use
  }
  return '49152-65535'
}

let portRange: string | null = null

/**
 * The local location descriptor.
 *
 * @example
 * localLocation().metadata.portRange // '32768-60999'
 */
export function localLocation (): LocalLocation {
  portRange ??= ephemeralPortRange()
  return {
    id: LOCAL_HARBOR_ID,
    harborId: LOCAL_HARBOR_ID,
    shipId: LOCAL_SHIP_ID,
    shipName: 'Local runtime host',
    name: 'Local runtime host',
    kubernetes: false,
    metadata: { portRange },
  }
}

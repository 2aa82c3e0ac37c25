/**
 * The platform's one location: the local runtime host where mock services run (DESIGN.md
 * section 5). Its id starts with `harbor-`, as private locations do in spec/001, and it carries
 * the fields clients read from /api/v1 and /api/v4 (`harborId`, `shipId`, `shipName`,
 * `kubernetes`, `metadata.portRange`, `purposes.serviceMock`, `limits`).
 *
 * @example
 * localLocation({ portRange: [30000, 32767] }).id // 'harbor-local'
 */
export function localLocation (options: { portRange?: readonly [number, number] | null; maxMockServices?: number } = {}) {
  const portRange = options.portRange ?? null
  return {
    id: 'harbor-local',
    harborId: 'harbor-local',
    shipId: 'ship-local',
    shipName: 'Local runtime host',
    title: 'Local runtime host',
    name: 'Local runtime host',
    provider: 'Private Locations',
    kubernetes: false,
    sandbox: false,
    limits: { threadsPerEngine: 0, concurrency: options.maxMockServices ?? -1, engines: -1, duration: -1 },
    capabilities: { dedicatedIps: false, isPrivileged: false },
    purposes: { load: false, functional: false, grid: false, serviceMock: true },
    metadata: { portRange: portRange === null ? null : `${portRange[0]}-${portRange[1]}` },
  }
}

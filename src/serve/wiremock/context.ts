import type { WireMockConverter } from './convert.js'
import type { WireMockHost } from './host.js'
import type { Journal } from './journal.js'
import type { Recorder } from './recordings.js'
import type { StubLayer } from './stubs.js'

/** What the WireMock admin routes share: the host (a runtime, or a cluster), its stubs, journal and recorder. */
export interface WireMockContext {
  readonly host: WireMockHost
  readonly layer: StubLayer
  readonly journal: Journal
  readonly recorder: Recorder
  /** The WireMock importer, loaded on first use. */
  converter: () => Promise<WireMockConverter>
  /** Stubs back to the document's own plus the persistent ones. */
  resetMappings: () => Promise<void>
  /** `POST /__admin/shutdown`; null when the runtime was not started to allow it. */
  readonly shutdown: (() => void) | null
  /** When the API started (health's uptime). */
  readonly started: number
}

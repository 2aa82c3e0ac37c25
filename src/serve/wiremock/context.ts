import type { Runtime } from '../runtime.js'
import type { WireMockConverter } from './convert.js'
import type { Journal } from './journal.js'
import type { Recorder } from './recordings.js'
import type { StubLayer } from './stubs.js'

/** What the WireMock admin routes share: the runtime, its stubs, journal and recorder. */
export interface WireMockContext {
  readonly runtime: Runtime
  readonly layer: StubLayer
  readonly journal: Journal
  readonly recorder: Recorder
  /** The WireMock importer, loaded on first use. */
  converter: () => Promise<WireMockConverter>
  /** Stubs back to the document's own plus the persistent ones. */
  resetMappings: () => void
  /** `POST /__admin/shutdown`; null when the runtime was not started to allow it. */
  readonly shutdown: (() => void) | null
  /** When the API started (health's uptime). */
  readonly started: number
}

import type { InspectionRecord } from '../../inspect/index.js'
import type { WireMockConverter } from './convert.js'
import { badRequest, invalidInput, malformed } from './errors.js'
import type { Journal } from './journal.js'
import type { StubLayer, WireMockStub } from './stubs.js'

/** WireMock's recording status. */
type RecordingStatus = 'NeverStarted' | 'Recording' | 'Stopped'

/** Response headers a recorded stub does not replay: they describe the recorded connection. */
const connectionHeaders = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'date',
])

/** Fields of a record spec Understudy honours; any other is refused, naming it. */
const startFields = new Set(['targetBaseUrl', 'persist'])
const snapshotFields = new Set(['persist'])

/**
 * WireMock's record and playback on the runtime's own machinery: while recording, requests no
 * stub matches are forwarded to the target (`bypasslive`, through the runtime's proxy and egress
 * rules) and journaled as LIVE; stopping turns those exchanges into stubs, as a snapshot turns
 * every LIVE exchange of the journal.
 */
export class Recorder {
  private state: RecordingStatus = 'NeverStarted'
  /**
   * The journal's ids when recording started: the LIVE records not among them are the recording
   * (ids are not in time order across the replicas of a cluster, so no single "since" id).
   */
  private before: ReadonlySet<number> = new Set()

  constructor(
    private readonly journal: Journal,
    private readonly stubs: StubLayer,
  ) {}

  get status(): RecordingStatus {
    return this.state
  }

  /** `POST /__admin/recordings/start` `{targetBaseUrl, persist?}`. */
  async start(spec: unknown): Promise<void> {
    const input = objectOf(spec)
    refuseUnknown(input, startFields)
    const target = input['targetBaseUrl']
    if (typeof target !== 'string') {
      throw invalidInput(
        '/targetBaseUrl',
        'targetBaseUrl is required: the base URL of the system to record',
      )
    }
    let url: URL
    try {
      url = new URL(target)
    } catch {
      throw invalidInput('/targetBaseUrl', `targetBaseUrl ${JSON.stringify(target)} is not a URL`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalidInput('/targetBaseUrl', 'targetBaseUrl must be http:// or https://')
    }
    if (url.pathname !== '/' || url.search !== '') {
      throw invalidInput(
        '/targetBaseUrl',
        'targetBaseUrl with a path is not supported by Understudy: requests are forwarded with their own path to the origin',
      )
    }
    if (!this.journal.enabled) {
      throw badRequest(
        '/targetBaseUrl',
        'recording needs the request journal, which --no-inspection turned off',
      )
    }
    this.before = new Set((await this.journal.records()).map((r) => r.id))
    await this.stubs.configure({ recordingTarget: url.origin })
    this.state = 'Recording'
  }

  /** `POST /__admin/recordings/stop`: the recorded stubs, added to the server. */
  async stop(
    convert: WireMockConverter,
  ): Promise<{ mappings: Array<Readonly<Record<string, unknown>>> }> {
    if (this.state !== 'Recording') throw badRequest('', 'Not currently recording')
    await this.stubs.configure({ recordingTarget: null })
    this.state = 'Stopped'
    const recorded = (await this.journal.records()).filter(
      (r) => !this.before.has(r.id) && r.source === 'LIVE',
    )
    return await this.keep(recorded, true, convert)
  }

  /** `POST /__admin/recordings/snapshot` `{persist?}`: stubs of every LIVE exchange journaled. */
  async snapshot(
    spec: unknown,
    convert: WireMockConverter,
  ): Promise<{ mappings: Array<Readonly<Record<string, unknown>>> }> {
    const input = spec === undefined ? {} : objectOf(spec)
    refuseUnknown(input, snapshotFields)
    const persist = input['persist'] !== false
    return await this.keep(
      (await this.journal.records()).filter((r) => r.source === 'LIVE'),
      persist,
      convert,
    )
  }

  private async keep(
    records: readonly InspectionRecord[],
    add: boolean,
    convert: WireMockConverter,
  ): Promise<{ mappings: Array<Readonly<Record<string, unknown>>> }> {
    // The journal is newest first; the first exchange of each request is the one kept, as WireMock does.
    const seen = new Set<string>()
    const built: WireMockStub[] = []
    for (const record of [...records].reverse()) {
      const key = `${record.method} ${record.url}`
      if (seen.has(key)) continue
      seen.add(key)
      built.push(this.stubs.build(stubOf(record), convert))
    }
    if (add && built.length > 0) await this.stubs.replace([...this.stubs.list(), ...built])
    return { mappings: built.map((s) => s.json) }
  }
}

/** A recorded exchange as a WireMock stub: the exact method and URL, the response as it came. */
function stubOf(record: InspectionRecord): Record<string, unknown> {
  const headers: Record<string, string> = {}
  const raw = record.responseHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? ''
    if (!connectionHeaders.has(name.toLowerCase())) headers[name] = raw[i + 1] ?? ''
  }
  const response: Record<string, unknown> = { status: record.statusCode }
  const body = record.responseBody
  if (body !== null && body.length > 0) {
    const text = body.toString('utf8')
    if (Buffer.from(text, 'utf8').equals(body)) response['body'] = text
    else response['base64Body'] = body.toString('base64')
  }
  if (Object.keys(headers).length > 0) response['headers'] = headers
  return { request: { url: record.url, method: record.method }, response, persistent: true }
}

function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed('the body must be a JSON object')
  }
  return value as Record<string, unknown>
}

function refuseUnknown(input: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(input)) {
    if (!known.has(key)) {
      throw invalidInput(
        `/${key}`,
        `${key} is not supported by Understudy's recording (supported: ${[...known].join(', ')})`,
      )
    }
  }
}

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../log/index.js'
import {
  Recording,
  type HarImporter,
  type LiveExchange,
  type MergeResult,
  type RecordedRequest,
} from '../serve/index.js'

interface RecorderOptions {
  /** Output directory: `recorded.json` (the DSL) and `.recording-state.json` (what re-runs merge). */
  dir: string
  /** Origin of the live system, for the HAR urls. */
  target: string
  keepLatency: boolean
  log: Logger
  importHar: HarImporter
  /** Batching interval, ms. */
  flushEvery?: number
}

const STATE_FILE = '.recording-state.json'
const OUTPUT_FILE = 'recorded.json'

/**
 * `understudy record`'s files around the runtime's Recording (src/serve/record): `add` only
 * queues (the proxied answer never waits); each merged batch rewrites `recorded.json` and the
 * state file. One transaction per distinct request (method, path, query, body): recording again
 * into the same directory replaces it, never duplicates it.
 */
export class Recorder {
  private readonly recording: Recording
  private writing = Promise.resolve()

  constructor(private readonly options: RecorderOptions) {
    mkdirSync(options.dir, { recursive: true })
    const recordingOptions = {
      onMerged: (result: MergeResult) => {
        this.merged(result)
      },
      onSkipped: (url: string, reason: string) => {
        options.log.warn({ url }, reason)
      },
    }
    this.recording = new Recording(
      options.flushEvery === undefined
        ? recordingOptions
        : { ...recordingOptions, flushEvery: options.flushEvery },
    )
    try {
      const state = JSON.parse(readFileSync(join(options.dir, STATE_FILE), 'utf8')) as {
        recorded?: RecordedRequest[]
      }
      this.recording.restore(state.recorded ?? [])
    } catch {
      // No previous recording.
    }
  }

  /** HOT PATH of the proxied request: one push. */
  add(exchange: LiveExchange): void {
    this.recording.add(exchange, this.options.target)
  }

  /** Merges what is queued and writes the files. */
  async flush(): Promise<void> {
    this.recording.stop()
    this.merged(this.recording.merge())
    return this.writing
  }

  /** How many distinct requests are recorded. */
  get size(): number {
    return this.recording.size
  }

  private merged({ merged }: MergeResult): void {
    if (merged > 0) this.queueWrite()
  }

  private queueWrite(): void {
    this.writing = this.writing
      .then(() => {
        this.write()
      })
      .catch((err: unknown) => {
        this.options.log.error({ err }, 'cannot write the recording')
      })
  }

  private write(): void {
    const transactions = this.recording.transactions(
      this.options.importHar,
      this.options.keepLatency,
    )
    atomicWrite(
      join(this.options.dir, OUTPUT_FILE),
      JSON.stringify({ name: 'recorded', transactions }, null, 2) + '\n',
    )
    atomicWrite(
      join(this.options.dir, STATE_FILE),
      JSON.stringify({ target: this.options.target, recorded: this.recording.list() }) + '\n',
    )
    this.options.log.info(
      { transactions: transactions.length, file: join(this.options.dir, OUTPUT_FILE) },
      'recording written',
    )
  }
}

function atomicWrite(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}

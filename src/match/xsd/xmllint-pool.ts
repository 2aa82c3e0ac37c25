import {
  MessageChannel,
  receiveMessageOnPort,
  type MessagePort,
  type Worker,
} from 'node:worker_threads'
import { spawnWorker } from '../../config/index.js'

/**
 * Bounds of XML Schema validation (docs/dsl.md, `matches_xml_schema`). A body over the size, a
 * validation over the time, or one that finds the queue full is not validated: the matcher does
 * not hold, and the diagnosis says why.
 */
export const XSD_LIMITS = {
  /** Largest body (or selected node) validated. */
  maxBodyBytes: 1024 * 1024,
  /** Longest one validation may run before its worker is ended. */
  timeoutMs: 2000,
  /** Worker threads validating request bodies at once (per process). */
  workers: 2,
  /** Validations waiting for a worker, beyond which new ones are refused. */
  maxQueued: 256,
  /** WebAssembly memory of one validation, in 64 KiB pages (64 MiB). */
  maxMemoryPages: 1024,
  /** Longest the load-time check of a schema may take (it includes starting the worker). */
  checkTimeoutMs: 20_000,
  /** An idle validating worker ends after this long (the next validation starts a new one). */
  idleMs: 30_000,
}

/** The verdict of one validation; `problem` is libxml2's first message, or why it did not run. */
export interface XsdOutcome {
  readonly valid: boolean
  readonly problem: string | null
}

interface Answer {
  seq: number
  exitCode: number
  stderr: string
}

function spawn(workerData: Record<string, unknown>, transferList: MessagePort[] = []): Worker {
  return spawnWorker(import.meta.url, './xmllint-worker', { workerData, transferList })
}

/** libxml2's first message, without the file-name prefix and the closing summary lines. */
function firstProblem(stderr: string): string {
  for (const line of stderr.split('\n')) {
    const text = line.trim()
    if (
      text === '' ||
      text.endsWith(' validates') ||
      text.endsWith('fails to validate') ||
      text.endsWith('failed to compile')
    ) {
      continue
    }
    return text
      .replace(/^(schema\.xsd|body\.xml):\d+: /, '')
      .replace(/^(element \S+: )?Schemas (validity|parser) error : /, '')
      .replace(/^parser error : /, 'not well-formed XML: ')
  }
  return 'not valid'
}

/** One long-lived worker thread running one job at a time, ended when a job overruns. */
class LintThread {
  readonly #worker: Worker
  #seq = 0
  #job: { seq: number; resolve: (a: Answer) => void; timer: NodeJS.Timeout } | null = null
  #idle: NodeJS.Timeout | null = null
  dead = false

  constructor(private readonly onGone: (t: LintThread) => void) {
    this.#worker = spawn({ maxMemoryPages: XSD_LIMITS.maxMemoryPages })
    this.#worker.unref()
    this.#worker.on('message', (a: Answer) => {
      this.#settle(a)
    })
    this.#worker.on('error', (err) => {
      this.#end(-2, `the validating worker failed: ${err.message}`)
    })
    this.#worker.on('exit', () => {
      this.#end(-2, 'the validating worker ended')
    })
  }

  get busy(): boolean {
    return this.#job !== null
  }

  run(schema: string, xml: string | Uint8Array): Promise<Answer> {
    if (this.#idle !== null) clearTimeout(this.#idle)
    const seq = ++this.#seq
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#end(-3, `took longer than ${XSD_LIMITS.timeoutMs} ms`)
      }, XSD_LIMITS.timeoutMs)
      this.#job = { seq, resolve, timer }
      this.#worker.postMessage({ seq, schema, xml })
    })
  }

  #settle(a: Answer): void {
    const job = this.#job
    if (job === null || job.seq !== a.seq) return
    clearTimeout(job.timer)
    this.#job = null
    this.#idle = setTimeout(() => {
      this.#end(-2, 'idle')
    }, XSD_LIMITS.idleMs).unref()
    job.resolve(a)
  }

  /** Ends the thread, answering its job (if any) with the reason. */
  #end(exitCode: number, reason: string): void {
    if (this.#job !== null) this.#settle({ seq: this.#job.seq, exitCode, stderr: reason })
    if (this.#idle !== null) clearTimeout(this.#idle)
    if (this.dead) return
    this.dead = true
    this.#worker.terminate().catch(() => {})
    this.onGone(this)
  }
}

interface Queued {
  schema: string
  xml: string | Uint8Array
  resolve: (o: XsdOutcome) => void
}

const threads: LintThread[] = []
const queue: Queued[] = []

const removeThread = (t: LintThread): void => {
  const i = threads.indexOf(t)
  if (i !== -1) threads.splice(i, 1)
  pump()
}

function pump(): void {
  while (queue.length > 0) {
    let thread = threads.find((t) => !t.busy && !t.dead)
    if (thread === undefined) {
      if (threads.length >= XSD_LIMITS.workers) return
      thread = new LintThread(removeThread)
      threads.push(thread)
    }
    const next = queue.shift() as Queued
    thread
      .run(next.schema, next.xml)
      .then((a) => {
        next.resolve(
          a.exitCode === 0
            ? { valid: true, problem: null }
            : {
                valid: false,
                problem: a.exitCode < 0 ? `not validated: ${a.stderr}` : firstProblem(a.stderr),
              },
        )
        pump()
      })
      .catch(() => {})
  }
}

/**
 * Validates a document against a schema in a worker thread, within XSD_LIMITS. Never rejects.
 *
 * @example
 * await validateXml(xsdText, Buffer.from('<order/>')) // { valid: false, problem: "Element 'order': Missing child element(s)..." }
 */
export function validateXml(schema: string, xml: string | Uint8Array): Promise<XsdOutcome> {
  if (xml.length > XSD_LIMITS.maxBodyBytes) {
    return Promise.resolve({
      valid: false,
      problem: `not validated: larger than ${XSD_LIMITS.maxBodyBytes} bytes`,
    })
  }
  if (queue.length >= XSD_LIMITS.maxQueued) {
    return Promise.resolve({ valid: false, problem: 'not validated: too many validations waiting' })
  }
  return new Promise((resolve) => {
    queue.push({ schema, xml, resolve })
    pump()
  })
}

/** The worker that checks schemas at load, waited for synchronously (Atomics.wait). */
let checker: { worker: Worker; port: MessagePort; signal: Int32Array; seq: number } | null = null

/**
 * Compiles a schema with libxml2 and says why it does not compile, or null when it does. Blocks
 * the calling thread (load time only, never on a request): mock compilation is synchronous.
 *
 * @example
 * checkSchemaSync('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a" type="xs:nope"/></xs:schema>') // "element decl. 'a', attribute 'type': ..."
 */
export function checkSchemaSync(schema: string): string | null {
  if (checker === null) {
    const { port1, port2 } = new MessageChannel()
    const signal = new Int32Array(new SharedArrayBuffer(4))
    const worker = spawn({ reply: port2, signal, maxMemoryPages: XSD_LIMITS.maxMemoryPages }, [
      port2,
    ])
    worker.unref()
    port1.unref()
    checker = { worker, port: port1, signal, seq: 0 }
  }
  const c = checker
  const seq = ++c.seq
  c.worker.postMessage({ seq, schema, xml: '<understudy-schema-check/>' })
  const deadline = Date.now() + XSD_LIMITS.checkTimeoutMs
  for (;;) {
    const seen = Atomics.load(c.signal, 0)
    if (seen === seq) break
    const left = deadline - Date.now()
    if (left <= 0) {
      c.worker.terminate().catch(() => {})
      checker = null
      return `could not be checked within ${XSD_LIMITS.checkTimeoutMs} ms`
    }
    Atomics.wait(c.signal, 0, seen, left)
  }
  for (let m = receiveMessageOnPort(c.port); m !== undefined; m = receiveMessageOnPort(c.port)) {
    const a = m.message as Answer
    if (a.seq !== seq) continue
    // 5: the schema does not compile; 0, 3, 4: it compiled (the probe document is not its business).
    if (a.exitCode === 5) return firstProblem(a.stderr)
    if (a.exitCode < 0) return `could not be checked: ${a.stderr}`
    return null
  }
  return 'could not be checked: no answer'
}

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parentPort, workerData, type MessagePort } from 'node:worker_threads'

/*
 * The worker thread that runs libxml2's XML Schema validation (xmllint-wasm: libxml2 compiled to
 * WebAssembly) for `matches_xml_schema`. It stays alive between jobs: the WebAssembly module is
 * compiled once here, and each job gets a fresh instance (libxml2 keeps global state, and a fresh
 * memory bounds what one hostile body can allocate). The instance sees only an in-memory file
 * system holding the two files of the job, and has no socket calls at all: a schema's
 * `xs:import`/`xs:include` can reach neither the disk nor the network (`--nonet` says it twice).
 *
 * Protocol (see xmllint-pool.ts): a job `{ seq, schema, xml }` is answered by `{ seq, exitCode,
 * stderr }` on `workerData.reply` (or the parent port); with `workerData.signal` (a shared
 * Int32Array), the answer's `seq` is also stored there and notified, for callers that wait
 * synchronously with Atomics.wait.
 */

interface Job {
  seq: number
  schema: string
  xml: string | Uint8Array
}
interface EmscriptenOptions {
  inputFiles: Array<{ fileName: string; contents: string | Uint8Array }>
  arguments: string[]
  print: (text: string) => void
  printErr: (text: string) => void
  onExit: (code: number) => void
  onAbort: (reason: unknown) => void
  instantiateWasm: (
    imports: WebAssembly.Imports,
    done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => object
  wasmMemory: WebAssembly.Memory
}
type XmllintModule = (options: EmscriptenOptions) => Promise<unknown>

const data = workerData as { reply?: MessagePort; signal?: Int32Array; maxMemoryPages: number }
const reply = data.reply ?? parentPort
const signal = data.signal ?? null
// Our listener first: the library's own (attached when it is required) ignores untagged messages.
parentPort?.on('message', (job: Job) => {
  run(job)
})

// Loaded once; a failure here is the answer to every job (a waiting caller must not hang).
let runXmllint: XmllintModule | null = null
let wasm: WebAssembly.Module | null = null
let setupFailure = ''
try {
  const require = createRequire(import.meta.url)
  runXmllint = require('xmllint-wasm/xmllint-node.js') as XmllintModule
  wasm = new WebAssembly.Module(readFileSync(require.resolve('xmllint-wasm/xmllint.wasm')))
} catch (err) {
  setupFailure = `libxml2 could not be loaded: ${String(err)}`
}
// 64 KiB pages: the instance starts at 16 MiB (what the module was built for).
const INITIAL_PAGES = 256

function answer(seq: number, exitCode: number, stderr: string): void {
  reply?.postMessage({ seq, exitCode, stderr })
  if (signal !== null) {
    Atomics.store(signal, 0, seq)
    Atomics.notify(signal, 0)
  }
}

function run(job: Job): void {
  if (runXmllint === null || wasm === null) {
    answer(job.seq, -2, setupFailure)
    return
  }
  const module = wasm
  let stderr = ''
  let answered = false
  const once = (code: number, text: string): void => {
    if (answered) return
    answered = true
    answer(job.seq, code, text)
  }
  runXmllint({
    inputFiles: [
      { fileName: 'schema.xsd', contents: job.schema },
      { fileName: 'body.xml', contents: job.xml },
    ],
    arguments: ['--noout', '--nonet', '--schema', 'schema.xsd', 'body.xml'],
    print: () => {},
    printErr: (text) => {
      if (stderr.length < 4096) stderr += `${text}\n`
    },
    onExit: (code) => {
      once(code, stderr)
    },
    onAbort: (reason) => {
      once(-1, `aborted: ${String(reason)}`)
    },
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(module, imports).then(
        (instance) => {
          done(instance, module)
        },
        (err: unknown) => {
          once(-1, String(err))
        },
      )
      return {}
    },
    wasmMemory: new WebAssembly.Memory({
      initial: INITIAL_PAGES,
      maximum: Math.max(INITIAL_PAGES, data.maxMemoryPages),
    }),
  }).catch((err: unknown) => {
    once(-1, String(err))
  })
}

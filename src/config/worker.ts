import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * Starts a worker thread on the module `entry` (a path relative to `base`, without extension).
 * `base` is the caller's `import.meta.url`: a compiled caller (`.js`, the package) starts the
 * compiled `entry.js`; a caller running from the TypeScript sources (tests, tsx, the benches)
 * starts `entry.ts` through tsx (`--import` in a worker's execArgv is not honoured by Node 20), the
 * one place the dev-only tsx is loaded. Every worker thread of
 * the product (imports, XSD validation, the script sandbox, webhooks, checkpoints) starts here.
 *
 * @example
 * const worker = spawnWorker(import.meta.url, './import-worker', { resourceLimits })
 */
export function spawnWorker(base: string, entry: string, options: WorkerOptions = {}): Worker {
  const fromSource = base.endsWith('.ts')
  const url = new URL(`${entry}.${fromSource ? 'ts' : 'js'}`, base)
  if (!fromSource) return new Worker(url, options)
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}

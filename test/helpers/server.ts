import { onTestFinished } from 'vitest'
import { loadRuntimeOptions, type RuntimeOptions } from '../../src/config/index.js'
import {
  loadDefinitionText,
  readDefinition,
  type MockServiceDocument,
} from '../../src/dsl/index.js'
import { createSilentLogger } from '../../src/log/index.js'
import { startAdmin, startRuntime, type AdminServer, type Runtime } from '../../src/serve/index.js'

type OptionsInput = Partial<Omit<RuntimeOptions, 'inspection'>> & {
  inspection?: Partial<RuntimeOptions['inspection']>
}

export interface TestServer {
  url: string
  runtime: Runtime
  admin: AdminServer | null
  close: () => Promise<void>
}

/**
 * Starts a real runtime on 127.0.0.1, port 0, logging off, from a document, a DSL value, or YAML
 * text; closes it when the test finishes. With `admin: true` the admin listener starts too.
 *
 * @example
 * const app = await startServer({ yaml: '- dsl: {requestDsl: {path: /a}, responseDsl: {text: a}}' })
 * const res = await fetch(`${app.url}/a`)
 */
export async function startServer(params: {
  document?: MockServiceDocument
  dsl?: unknown
  yaml?: string
  options?: OptionsInput
  admin?: boolean
}): Promise<TestServer> {
  const document =
    params.document ??
    (params.yaml !== undefined
      ? loadDefinitionText(params.yaml, 'test.yaml')
      : readDefinition(params.dsl ?? []))
  const options = loadRuntimeOptions({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    drainTimeout: 2000,
    ...params.options,
  } as Partial<RuntimeOptions>)
  const log = createSilentLogger()
  const runtime = await startRuntime({ document, options, log })
  const admin =
    params.admin === true
      ? await startAdmin({ runtime, host: '127.0.0.1', port: 0, log, logRing: null })
      : null
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    await Promise.all([runtime.close(), admin?.close()])
  }
  onTestFinished(close)
  return { url: runtime.urls.http, runtime, admin, close }
}

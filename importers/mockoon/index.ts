import { normalizeDocument, type DocumentInput } from '../../src/dsl/index.js'
import { finishDrafts, type Draft } from '../shared/build.js'
import { isMockoonEnvironment } from '../shared/detect.js'
import { guardImport, importInvalid } from '../shared/errors.js'
import { isObject, parseStructured, str, type Loose } from '../shared/structured.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import type { EnvironmentParts } from './response.js'
import { draftsOfRoute } from './route.js'

/**
 * Imports a Mockoon environment as it is: each route response becomes a transaction (rules as
 * matchers, in Mockoon's order of precedence), and the environment's prefix, latency, CORS option,
 * headers, data buckets, callbacks and proxy mode are carried over. What has no equivalent
 * (random responses, WebSocket routes, helpers the runtime lacks, ...) is a warning. Response
 * files are read through `ctx.readFile`, relative to the environment.
 *
 * @example
 * importMockoon({ bytes: readFileSync('env.json'), fileName: 'env.json' }).document.cors // true
 */
export function importMockoon(input: ImportInput, ctx: ImportContext = {}): ImportResult {
  const parsed = parseStructured(input)
  return guardImport(input.fileName, () => {
    const env = parsed.value
    if (!isObject(env) || !isMockoonEnvironment(env)) {
      throw importInvalid(
        input.fileName,
        'expected a Mockoon environment (an object with lastMigration and routes)',
      )
    }
    const warnings: ImportWarning[] = []
    const note = (message: string, at?: string): void => {
      warnings.push(
        at === undefined
          ? { message, file: input.fileName }
          : { message, file: input.fileName, at },
      )
    }
    const parts = environmentParts(env, ctx)
    let priority = 0
    const drafts: Draft[] = []
    const routes = env['routes'] as unknown[]
    routes.forEach((route, i) => {
      if (!isObject(route)) {
        note(`route ${i} is not an object; skipped`, `/routes/${i}`)
        return
      }
      drafts.push(
        ...draftsOfRoute(route, `/routes/${i}`, {
          env: parts,
          prefix: str(env['endpointPrefix']) ?? '',
          nextPriority: () => ++priority,
          note,
        }),
      )
    })
    const transactions = finishDrafts(drafts, {
      file: input.fileName,
      locate: parsed.locate,
      warnings,
    })
    if (transactions.length === 0) note('no route could be turned into a transaction')
    const document = normalizeDocument(settingsOf(env, note), transactions)
    return { format: 'mockoon', dslType: 'MOCKOON_DSL', document, warnings }
  })
}

function environmentParts(env: Loose, ctx: ImportContext): EnvironmentParts {
  const buckets = new Map<string, string>()
  for (const bucket of Array.isArray(env['data']) ? env['data'].filter(isObject) : []) {
    const value = str(bucket['value']) ?? ''
    for (const key of [bucket['id'], bucket['uuid']]) {
      if (typeof key === 'string' && key !== '') buckets.set(key, value)
    }
  }
  const callbacks = new Map<string, Loose>()
  for (const callback of Array.isArray(env['callbacks']) ? env['callbacks'].filter(isObject) : []) {
    const uuid = str(callback['uuid'])
    if (uuid !== undefined) callbacks.set(uuid, callback)
  }
  const headers = (Array.isArray(env['headers']) ? env['headers'].filter(isObject) : []).flatMap(
    (h) => {
      const name = str(h['key'])
      return name === undefined || name === ''
        ? []
        : [
            {
              name,
              value: h['value'] === undefined || h['value'] === null ? '' : String(h['value']),
            },
          ]
    },
  )
  const latency = typeof env['latency'] === 'number' && env['latency'] > 0 ? env['latency'] : 0
  return { headers, buckets, callbacks, latency, readFile: ctx.readFile }
}

/** The mock-service settings of the environment: think time, CORS, proxy mode. */
function settingsOf(env: Loose, note: (message: string, at?: string) => void): DocumentInput {
  const settings: DocumentInput = {}
  const name = str(env['name'])
  if (name !== undefined && name !== '') settings.name = name
  if (typeof env['latency'] === 'number' && env['latency'] > 0) {
    settings.thinkTime = Math.round(env['latency'])
  }
  if (env['cors'] === true) settings.cors = true
  const proxyHost = str(env['proxyHost']) ?? ''
  if (env['proxyMode'] === true) {
    if (/^https?:\/\//.test(proxyHost)) {
      settings.noMatchingRequestPreference = 'bypasslive'
      settings.liveSystemHost = proxyHost.replace(/\/+$/, '')
      if (env['proxyRemovePrefix'] === true) {
        note('proxyRemovePrefix has no equivalent: forwarded requests keep the prefix')
      }
      for (const key of ['proxyReqHeaders', 'proxyResHeaders']) {
        const list = env[key]
        if (Array.isArray(list) && list.some((h) => isObject(h) && (str(h['key']) ?? '') !== '')) {
          note(`${key} have no equivalent and are not added`)
        }
      }
    } else {
      note(
        `proxy mode needs an http(s) proxyHost (got ${JSON.stringify(proxyHost)}); requests no route matches answer 404`,
      )
    }
  }
  const tls = env['tlsOptions']
  if ((isObject(tls) && tls['enabled'] === true) || env['https'] === true) {
    note("TLS is set by the runtime's own flags (docs/runtime.md), not by the environment")
  }
  return settings
}

import {
  DEFAULT_PRIORITY,
  joinPointer,
  originOf,
  type DslInput,
  type Transaction,
} from '../../src/dsl/index.js'
import { finishDrafts, resultOf, type Draft } from '../shared/build.js'
import { formatDetail, type ErrorDetail } from '../../src/errors/index.js'
import { detailAt, guardImport, importInvalid } from '../shared/errors.js'
import { isObject, parseStructured, str, type Loose } from '../shared/structured.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { requestOf } from './request.js'
import { responseOf } from './response.js'
import { applyScenario, applyWebhooks } from './dynamic.js'

/**
 * WireMock's priority of a stub that sets none (1 is the highest, as in the DSL).
 *
 * @example
 * WIREMOCK_DEFAULT_PRIORITY + 5 // 10, the DSL default it maps to
 */
const WIREMOCK_DEFAULT_PRIORITY = 5

/**
 * WireMock priorities map onto DSL priorities by a shift that lands WireMock's default (5) on the
 * DSL's (10): 1 -> 6, 5 -> 10, 7 -> 12. The order among the imported stubs is kept exactly, and a
 * stub without a priority ranks like a hand-written transaction without one.
 */
const PRIORITY_SHIFT = DEFAULT_PRIORITY - WIREMOCK_DEFAULT_PRIORITY

const ignoredStubKeys = new Set([
  'id',
  'uuid',
  'name',
  'persistent',
  'metadata',
  'insertionIndex',
  'request',
  'response',
  'priority',
])

const unsupportedStubKeys: Record<string, string> = {}

/** Mapped by dynamic.ts (scenarios, webhooks). */
const dynamicStubKeys = new Set([
  'scenarioName',
  'requiredScenarioState',
  'newScenarioState',
  'postServeActions',
  'serveEventListeners',
])

/**
 * Imports WireMock stub mappings: one stub (`{request, response}`) or `{mappings: [...]}`. A
 * directory of mapping files is imported file by file by the caller. `bodyFileName` is read through
 * `ctx.readFile` (from `__files/`). Anything WireMock does that the DSL cannot (templating,
 * scenarios, faults, ...) is a warning naming the stub, never silence.
 *
 * @example
 * importWireMock({ bytes: Buffer.from('{"request":{"url":"/a"},"response":{"body":"x"}}'), fileName: 'a.json' })
 * // document.transactions[0]: url equals_url /a, responseDsl.content 'eA=='
 */
export function importWireMock(input: ImportInput, ctx: ImportContext = {}): ImportResult {
  const parsed = parseStructured(input)
  return guardImport(input.fileName, () => {
    const value = parsed.value
    const stubs: Array<{ stub: unknown; pointer: string }> = []
    if (isObject(value) && Array.isArray(value['mappings'])) {
      value['mappings'].forEach((stub, i) =>
        stubs.push({ stub, pointer: joinPointer('/mappings', i) }),
      )
    } else if (isObject(value) && (isObject(value['request']) || isObject(value['response']))) {
      stubs.push({ stub: value, pointer: '' })
    } else {
      throw importInvalid(
        input.fileName,
        'expected a WireMock stub mapping (an object with "request" and "response") or {"mappings": [...]}',
      )
    }
    const warnings: ImportWarning[] = []
    const drafts: Draft[] = []
    const broken: ErrorDetail[] = []
    for (const { stub, pointer } of stubs) {
      if (!isObject(stub) || !isObject(stub['request'])) {
        broken.push(
          detailAt(
            input.fileName,
            pointer,
            'expected a stub mapping: an object with "request" (and "response")',
            parsed.locate,
          ),
        )
        continue
      }
      const draft = draftOf(stub, stub['request'], pointer, input.fileName, ctx, warnings)
      if (draft !== undefined) drafts.push(draft)
    }
    if (drafts.length === 0 && broken.length > 0) {
      throw importInvalid(
        input.fileName,
        `no stub could be read: ${broken.map(formatDetail).slice(0, 3).join('; ')}`,
        broken,
      )
    }
    for (const b of broken) {
      warnings.push({ message: `${b.message}; skipped`, file: input.fileName, at: b.path })
    }
    if (stubs.length === 0) {
      warnings.push({ message: 'contains no stub mappings', file: input.fileName })
    }
    const transactions = finishDrafts(drafts, {
      file: input.fileName,
      locate: parsed.locate,
      warnings,
    })
    keepOriginals(transactions, stubs)
    return resultOf('wiremock', 'WIREMOCK_DSL', transactions, warnings)
  })
}

/**
 * The key under which each imported transaction carries the stub mapping it came from, as written:
 * the WireMock admin API lists stubs loaded from files with it (`GET /__admin/mappings`) as
 * WireMock does. A registered symbol, because src/serve may not import importers/.
 */
const WIREMOCK_ORIGINAL = Symbol.for('understudy.wiremock.original')

/** Attaches to each transaction the stub it came from (one object per stub, shared by its transactions). */
function keepOriginals(
  transactions: readonly Transaction[],
  stubs: ReadonlyArray<{ stub: unknown; pointer: string }>,
): void {
  const byPointer = new Map(stubs.map((s) => [s.pointer, s.stub]))
  for (const txn of transactions) {
    const stub = byPointer.get(originOf(txn)?.pointer ?? '\u0000')
    // Not enumerable: the transaction compares and serializes as any other; the runtime keeps the
    // imported objects as they are, so the stub travels with them. A copy made by a spread loses
    // it, and the stub is then listed rendered from its transaction.
    if (isObject(stub)) {
      Object.defineProperty(txn, WIREMOCK_ORIGINAL, { value: stub, enumerable: false })
    }
  }
}

function draftOf(
  stub: Loose,
  request: Loose,
  pointer: string,
  file: string,
  ctx: ImportContext,
  warnings: ImportWarning[],
): Draft | undefined {
  const name = stubName(stub)
  const stubLabel = `stub "${name}"`
  const note = (message: string): void => {
    warnings.push({ message: `${stubLabel}: ${message}`, file, at: pointer })
  }
  const requestDsl = requestOf(request, note)
  const response = stub['response'] === undefined ? {} : stub['response']
  if (!isObject(response)) {
    note('response must be an object; skipped')
    return undefined
  }
  const mapped = responseOf(response, { readFile: ctx.readFile, note })
  if ('skip' in mapped) {
    note(`skipped: ${mapped.skip}`)
    return undefined
  }
  const dsl: DslInput = {
    priority: priorityOf(stub['priority'], note),
    requestDsl,
    responseDsl: mapped.responseDsl,
  }
  applyScenario(stub, dsl)
  applyWebhooks(stub, mapped.responseDsl, note)
  for (const key of Object.keys(stub)) {
    const reason = unsupportedStubKeys[key]
    if (reason !== undefined) {
      if (reason !== '') note(reason)
    } else if (!ignoredStubKeys.has(key) && !dynamicStubKeys.has(key)) {
      note(`unknown property ${key}; ignored`)
    }
  }
  return { name, dsl, pointer, label: stubLabel }
}

function priorityOf(value: unknown, note: (message: string) => void): number {
  if (value === undefined || value === null) return WIREMOCK_DEFAULT_PRIORITY + PRIORITY_SHIFT
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1) return n + PRIORITY_SHIFT
  note(
    `priority ${JSON.stringify(value)} is not a positive integer; WireMock's default ${WIREMOCK_DEFAULT_PRIORITY} is used`,
  )
  return WIREMOCK_DEFAULT_PRIORITY + PRIORITY_SHIFT
}

/** The stub's `name`, else `METHOD url` from its request. */
function stubName(stub: Loose): string {
  const given = str(stub['name'])
  if (given !== undefined && given !== '') return given
  const req = isObject(stub['request']) ? stub['request'] : {}
  const method = str(req['method']) ?? 'ANY'
  const url =
    str(req['url']) ??
    str(req['urlPath']) ??
    str(req['urlPathTemplate']) ??
    str(req['urlPattern']) ??
    str(req['urlPathPattern']) ??
    'any URL'
  return `${method.toUpperCase()} ${url}`
}

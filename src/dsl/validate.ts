import { compileDateFormat } from './date-format.js'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { createError, type ErrorDetail } from '../errors/index.js'
import { joinPointer, type SourcePosition } from './parse.js'
import { recordItemOrigin, recordOrigin, type ItemsOrigin, type Origin } from './origin.js'
import { normalizeDocument, normalizeTransaction } from './normalize.js'
import { dslSchemas } from './schema/index.js'
import { MAX_DEFINITION_DEPTH, tooDeepAt } from './depth.js'
import { transactionCountProblem } from './transaction-limit.js'
import type { MockServiceDocument, Transaction } from './types.js'
import type {
  DelayInput,
  DocumentInput,
  DslInput,
  MatcherInput,
  TransactionInput,
} from './input-types.js'
import { closestName, nearestName } from './nearest-name.js'

// One ajv instance and its validators, compiled once when the module loads.
// `verbose` gives each error its parent schema, used to suggest the property a typo meant.
// Start-up pays for compiling them: without ajv's code optimisation passes, and with `$ref`s
// compiled once as functions of their own instead of inlined where used, they compile in about
// 40 % less time; and the smaller functions validate about five times faster (V8 optimises them;
// the inlined transaction validator was too large), measured on 100,000 transactions.
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  verbose: true,
  inlineRefs: false,
  code: { optimize: false },
})
for (const schema of dslSchemas) ajv.addSchema(schema)
const validators = {
  transaction: ajv.getSchema('understudy:transaction') as ValidateFunction,
  dsl: ajv.getSchema('understudy:dsl') as ValidateFunction,
  document: ajv.getSchema('understudy:mock-service') as ValidateFunction,
}

/** Where the value being read came from. */
interface DefinitionSource {
  file?: string
  locate?: (pointer: string) => SourcePosition | undefined
}

type Loose = Record<string, unknown>
const isObject = (v: unknown): v is Loose =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** One transaction found in the input, with its JSON pointer, before normalization. */
interface Item {
  value: TransactionInput | DslInput
  pointer: string
  bare: boolean
  /** Its index in the list it was read from; -1 for a document that is one transaction. */
  index: number
}

/**
 * Reads any accepted shape (one transaction, a bare dsl, an array, `{transactions: [...]}`, or a
 * whole mock-service document), validates it with every error listed, and normalizes it into a
 * mock-service document. Throws ERR_DSL_INVALID with details carrying JSON pointers and, when the
 * source can locate them, file:line:column.
 *
 * @example
 * readDefinition([{ dsl: { requestDsl: { path: '/a' }, responseDsl: { text: 'a' } } }]).transactions.length // 1
 */
export function readDefinition(value: unknown, source: DefinitionSource = {}): MockServiceDocument {
  const steps = definitionSteps(value, source)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/**
 * readDefinition for a document read while serving (`PUT /config`): the same result, with `pause`
 * (a time slicer) awaited every few hundred transactions, so that 100,000s of them are validated
 * without holding the event loop.
 *
 * @example
 * const doc = await readDefinitionSliced(parsed.value, { locate: parsed.locate }, timeSlicer())
 */
export async function readDefinitionSliced(
  value: unknown,
  source: DefinitionSource,
  pause: () => Promise<void>,
): Promise<MockServiceDocument> {
  const steps = definitionSteps(value, source)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await pause()
  }
}

/**
 * Transactions read between two yields of definitionSteps: few, because a yield is cheap and the
 * caller's time slicer decides when to let the event loop turn (a slow machine took 0.4 s for 256).
 */
const STEP = 16

/** The work of readDefinition, yielding every STEP transactions of each pass. */
function* definitionSteps(
  value: unknown,
  source: DefinitionSource,
): Generator<void, MockServiceDocument, void> {
  const errors: ErrorDetail[] = []
  const report = (pointer: string, message: string): void => {
    errors.push(locateDetail(source, pointer, message))
  }
  let fields: DocumentInput = {}
  let fieldsValid = true
  let items: Item[] = []
  // Before validating or compiling anything: a document past the bound is refused whole.
  const count = Array.isArray(value)
    ? value.length
    : isObject(value) && Array.isArray(value['transactions'])
      ? value['transactions'].length
      : 1
  const tooMany = transactionCountProblem(count)
  if (tooMany !== null) {
    throw refusedWhole(source, Array.isArray(value) ? '' : '/transactions', tooMany)
  }
  // Before anything recursive (ajv, normalization) reads the value.
  const deepAt = yield* tooDeepSteps(value)
  if (deepAt !== null) {
    throw refusedWhole(source, deepAt, `nests deeper than ${MAX_DEFINITION_DEPTH} levels`)
  }
  let list = ''
  if (Array.isArray(value)) {
    items = value
      .map((v, i) => itemOf(v, joinPointer('', i), i, report))
      .filter((i): i is Item => i !== null)
  } else if (isObject(value) && 'transactions' in value) {
    fields = value as DocumentInput
    fieldsValid = collect(validators.document, value, '', report)
    list = '/transactions'
    if (Array.isArray(fields.transactions)) {
      items = fields.transactions
        .map((v, i) => itemOf(v, joinPointer(list, i), i, report))
        .filter((i): i is Item => i !== null)
    }
  } else {
    const item = itemOf(value, '', -1, report)
    if (item !== null) items = [item]
  }
  yield
  // Semantic rules run on every part whose shape is valid, so that one pass reports everything.
  const validItems: Item[] = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Item
    if (
      collect(item.bare ? validators.dsl : validators.transaction, item.value, item.pointer, report)
    ) {
      validItems.push(item)
    }
    if (i % STEP === STEP - 1) yield
  }
  yield* checkSemantics(fieldsValid ? fields : {}, validItems, idsOf(items), report)
  if (errors.length > 0) throw invalid(errors, source)

  const transactions: Transaction[] = []
  const shared: ItemsOrigin = { list }
  if (source.file !== undefined) shared.file = source.file
  if (source.locate !== undefined) shared.locate = source.locate
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as Item
    const txn: Transaction = normalizeTransaction(item.value, index)
    recordItemOrigin(txn, shared, item.index, item.bare)
    transactions.push(txn)
    if (index % STEP === STEP - 1) yield
  }
  const doc = normalizeDocument(fields, transactions)
  recordOrigin(doc, originFor(source, '', false))
  return doc
}

/**
 * tooDeepAt of a definition, a step every STEP transactions: each transaction of a list is checked
 * with the bound less the levels above it (the list, and the document around it).
 */
function* tooDeepSteps(value: unknown): Generator<void, string | null, void> {
  const bare = Array.isArray(value)
  const list = bare
    ? value
    : isObject(value) && Array.isArray(value['transactions'])
      ? (value['transactions'] as unknown[])
      : null
  if (list === null) return tooDeepAt(value)
  const base = bare ? '' : '/transactions'
  for (let i = 0; i < list.length; i++) {
    const found = tooDeepAt(list[i], MAX_DEFINITION_DEPTH - (bare ? 1 : 2))
    if (found !== null) return `${base}/${i}${found}`
    if (i % STEP === STEP - 1) yield
  }
  if (bare) return null
  for (const key in value as Record<string, unknown>) {
    if (key === 'transactions') continue
    const found = tooDeepAt((value as Record<string, unknown>)[key], MAX_DEFINITION_DEPTH - 1)
    if (found !== null) return joinPointer('', key) + found
  }
  return null
}

function originFor(source: DefinitionSource, pointer: string, bare: boolean): Origin {
  const origin: Origin = { pointer, dslPointer: bare ? pointer : `${pointer}/dsl` }
  if (source.file !== undefined) origin.file = source.file
  if (source.locate !== undefined) origin.locate = source.locate
  return origin
}

function itemOf(
  value: unknown,
  pointer: string,
  index: number,
  report: (p: string, m: string) => void,
): Item | null {
  // The shapes are checked by the schemas afterwards; here only the discriminating member.
  if (isObject(value) && 'dsl' in value) {
    return { value: value as unknown as TransactionInput, pointer, bare: false, index }
  }
  if (isObject(value) && 'requestDsl' in value) {
    return { value: value as unknown as DslInput, pointer, bare: true, index }
  }
  report(
    pointer,
    'must be a transaction (an object with `dsl`), a bare dsl (with `requestDsl`), an array of them, or a mock-service document (with `transactions`)',
  )
  return null
}

/** Validates against a schema, reporting every error; true when there was none. */
function collect(
  validate: ValidateFunction,
  value: unknown,
  pointer: string,
  report: (p: string, m: string) => void,
): boolean {
  if (validate(value)) return true
  for (const e of simplify(validate.errors ?? [])) {
    // Point an unknown property at the property itself, so that file:line lands on the typo.
    const extra =
      e.keyword === 'additionalProperties'
        ? (e.params as ErrorParams).additionalProperty
        : undefined
    report(
      extra === undefined ? pointer + e.instancePath : joinPointer(pointer + e.instancePath, extra),
      describe(e),
    )
  }
  return false
}

/** Drops the noise of anyOf branches, keeping the errors that name what the user can fix. */
function simplify(errors: ErrorObject[]): ErrorObject[] {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath))
  const seen = new Set<string>()
  return errors.filter((e) => {
    if (e.keyword !== 'anyOf' && anyOfPaths.has(e.instancePath) && e.schemaPath.includes('anyOf')) {
      return false
    }
    const id = `${e.instancePath} ${describe(e)}`
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

interface ErrorParams {
  additionalProperty?: string
  allowedValues?: unknown[]
  missingProperty?: string
}

/** The known property nearest to a misspelt one, by edit distance, to suggest a fix. */
function closestKnown(name: string, schema: unknown): string {
  const known = typeof schema === 'object' && schema !== null ? Object.keys(schema) : []
  return `"${closestName(name, known) ?? ''}"`
}

/** ` (did you mean "x"?)` when a mistyped value is close to an allowed one. */
function didYouMean(value: unknown, allowed: readonly unknown[]): string {
  if (typeof value !== 'string') return ''
  const nearest = nearestName(
    value,
    allowed.filter((v): v is string => typeof v === 'string'),
  )
  return nearest === null ? '' : ` (did you mean ${JSON.stringify(nearest)}?)`
}

function describe(e: ErrorObject): string {
  const params = e.params as ErrorParams
  switch (e.keyword) {
    case 'additionalProperties':
      return `is not a known property (typo of ${closestKnown(String(params.additionalProperty), e.parentSchema?.['properties'])}?)`
    case 'enum':
      return `must be one of ${(params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}${didYouMean(e.data, params.allowedValues ?? [])}`
    case 'required':
      return `must have property "${String(params.missingProperty)}"`
    case 'anyOf':
      return 'does not match any accepted form'
    case 'not':
      return 'must not combine more than one of `text`, `json` and `content`'
    default:
      return e.message ?? 'is invalid'
  }
}

function locateDetail(source: DefinitionSource, path: string, message: string): ErrorDetail {
  const detail: ErrorDetail = { path, message }
  if (source.file !== undefined) detail.file = source.file
  const pos = source.locate?.(path)
  if (pos !== undefined) {
    detail.line = pos.line
    detail.column = pos.column
  }
  return detail
}

/** A document refused before it is read, for a bound it passes: the message names the bound. */
function refusedWhole(source: DefinitionSource, pointer: string, message: string) {
  const where = source.file === undefined ? '' : `${source.file}: `
  return createError(
    'ERR_DSL_INVALID',
    [`${where}${pointer === '' ? '' : `${pointer} `}${message}`],
    { details: [locateDetail(source, pointer, message)] },
  )
}

function invalid(errors: ErrorDetail[], source: DefinitionSource) {
  const where = source.file === undefined ? '' : `${source.file}: `
  const count = errors.length === 1 ? '1 error' : `${errors.length} errors`
  return createError('ERR_DSL_INVALID', [`${where}${count}`], { details: errors })
}

type Report = (pointer: string, message: string) => void

/** Transaction ids present in the input (whatever the validity of the rest), for cross references. */
function idsOf(items: Item[]): Set<number> {
  const ids = new Set<number>()
  for (const item of items) {
    const id = 'dsl' in item.value ? (item.value as { id?: unknown }).id : undefined
    if (typeof id === 'number') ids.add(id)
  }
  return ids
}

/**
 * Rules the schema cannot express: delay parameters, cross references, matcher arguments. Runs on
 * the parts whose shape is valid; `ids` holds every transaction id of the input. Yields every
 * STEP parts (see definitionSteps).
 */
function* checkSemantics(
  fields: DocumentInput,
  items: Item[],
  ids: ReadonlySet<number>,
  report: Report,
): Generator<void, void, void> {
  if (typeof fields.thinkTime === 'object' && fields.thinkTime !== null) {
    checkDelay(fields.thinkTime, '/thinkTime', report)
  }
  const seen = new Set<number>()
  let checked = 0
  for (const item of items) {
    if (++checked % STEP === 0) yield
    const dsl = 'dsl' in item.value ? item.value.dsl : item.value
    const base = item.bare ? item.pointer : `${item.pointer}/dsl`
    if ('dsl' in item.value && item.value.id !== undefined) {
      if (seen.has(item.value.id)) {
        report(`${item.pointer}/id`, `duplicates transaction id ${item.value.id}`)
      }
      seen.add(item.value.id)
    }
    const request = dsl.requestDsl
    const response = dsl.responseDsl ?? {}
    if (response.responseDelay !== undefined && response.responseDelay !== null) {
      checkDelay(response.responseDelay, `${base}/responseDsl/responseDelay`, report)
    }
    if (
      typeof response.proxyUrl === 'string' &&
      response.proxyUrl !== '' &&
      !isHttpUrl(response.proxyUrl)
    ) {
      report(`${base}/responseDsl/proxyUrl`, 'must be an absolute http:// or https:// URL')
    }
    if (
      typeof response.content === 'string' &&
      !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(response.content)
    ) {
      report(
        `${base}/responseDsl/content`,
        'must be base64 (use `text` or `json` for a plain body)',
      )
    }
    // --- product DSL compatibility: status code conditions hold body matchers ---
    dsl.statusCodeConditions?.forEach((c, i) =>
      checkMatcher(c.matcher, `${base}/statusCodeConditions/${i}/matcher`, 'body', report),
    )
    response.statusCodeConditions?.forEach((c, i) =>
      checkMatcher(
        c.matcher,
        `${base}/responseDsl/statusCodeConditions/${i}/matcher`,
        'body',
        report,
      ),
    )
    if (request.url !== undefined) {
      checkMatcher(request.url, `${base}/requestDsl/url`, 'url', report)
    }
    for (const part of ['headers', 'queryParams', 'cookies', 'body'] as const) {
      request[part]?.forEach((m, i) =>
        checkMatcher(m, `${base}/requestDsl/${part}/${i}`, part, report),
      )
    }
  }
  const preference = (fields.noMatchingRequestPreference ?? 'return404').toLowerCase()
  if (preference === 'returntransaction') {
    if (typeof fields.noMatchingRequestTxnId !== 'number') {
      report(
        '/noMatchingRequestTxnId',
        'is required when noMatchingRequestPreference is returnTransaction',
      )
    } else if (!ids.has(fields.noMatchingRequestTxnId)) {
      report(
        '/noMatchingRequestTxnId',
        `names transaction ${fields.noMatchingRequestTxnId}, which is not among the transactions`,
      )
    }
  }
  if (
    (preference === 'bypasslive' || preference === 'record') &&
    (fields.liveSystemHost ?? '') === ''
  ) {
    report('/liveSystemHost', `is required when noMatchingRequestPreference is ${preference}`)
  }
  fields.mockServiceTransactions?.forEach((e, i) => {
    const id = typeof e === 'number' ? e : e.txnId
    if (!ids.has(id)) {
      report(
        `/mockServiceTransactions/${i}`,
        `names transaction ${id}, which is not among the transactions`,
      )
    }
  })
}

const needsValue = new Set([
  'equals',
  'equals_insensitive',
  'contains',
  'matches',
  'matches_url',
  'not_matches',
  'equals_url',
  'matches_json',
  'equals_json',
  'equals_xml',
  'matches_xml',
  'matches_xml_schema',
  'matches_xml_cdata',
  'matches_json_schema',
  'before_date',
  'after_date',
  'equals_date',
])
const bodyOnly = new Set([
  'matches_json',
  'equals_json',
  'equals_xml',
  'matches_xml',
  'matches_xml_schema',
  'matches_xml_cdata',
  'matches_json_schema',
])
const dateMatchers = new Set(['before_date', 'after_date', 'equals_date'])
/** What `allParts` applies to: the text comparisons of a form field. */
const partMatchers = new Set([
  'equals',
  'equals_insensitive',
  'contains',
  'matches',
  'not_matches',
  ...dateMatchers,
])
const keyedParts: Record<string, string> = {
  headers: 'header',
  queryParams: 'parameter',
  cookies: 'cookie',
}

function checkMatcher(m: MatcherInput, pointer: string, part: string, report: Report): void {
  const name = m.matcherName
  if (needsValue.has(name) && m.matchingValue === undefined) {
    report(pointer, `must have property "matchingValue" for matcher ${name}`)
  }
  if (bodyOnly.has(name) && part !== 'body') {
    report(`${pointer}/matcherName`, `${name} applies only to body matchers`)
  }
  if (part === 'url' && name === 'absent') {
    report(`${pointer}/matcherName`, 'a request always has a URL; absent cannot apply to it')
  }
  if (part === 'url' && dateMatchers.has(name)) {
    report(`${pointer}/matcherName`, `${name} compares date-times; it cannot apply to the URL`)
  }
  for (const option of ['dateFormat', 'truncateExpected', 'truncateActual'] as const) {
    if (m[option] !== undefined && !dateMatchers.has(name)) {
      report(
        `${pointer}/${option}`,
        `${option} applies only to before_date, after_date, equals_date`,
      )
    }
  }
  if (m.allParts === true && (part !== 'body' || (m.key ?? '') !== '' || !partMatchers.has(name))) {
    report(
      `${pointer}/allParts`,
      'applies only to body matchers without key comparing text (equals, equals_insensitive, contains, matches, not_matches, and the date matchers)',
    )
  }
  if (m.dateFormat !== undefined) {
    const format = compileDateFormat(m.dateFormat)
    if ('error' in format) {
      report(`${pointer}/dateFormat`, `is not a date pattern Understudy reads: ${format.error}`)
    }
  }
  const itemName = keyedParts[part]
  if (itemName !== undefined) {
    const named = (m.key ?? '') !== '' || (name === 'absent' && (m.matchingValue ?? '') !== '')
    if (!named) report(pointer, `must have property "key" naming the ${itemName}`)
  }
  if (name === 'matches_xml_cdata' && (m.cdataXpath ?? '') === '') {
    report(pointer, 'must have property "cdataXpath" for matcher matches_xml_cdata')
  }
  if (name === 'equals_json' && m.matchingValue !== undefined) {
    try {
      JSON.parse(m.matchingValue)
    } catch (err) {
      report(
        `${pointer}/matchingValue`,
        `must be JSON: ${err instanceof Error ? err.message : String(err)}`,
      )
    }
  }
}

function checkDelay(value: DelayInput, pointer: string, report: Report): void {
  const type = value.type.toLowerCase()
  const need = (key: 'duration' | 'lower' | 'upper' | 'median' | 'sigma') => {
    if (value[key] === undefined) report(pointer, `must have property "${key}" for a ${type} delay`)
  }
  if (type === 'fixed') need('duration')
  if (type === 'uniform') {
    need('lower')
    need('upper')
    if (value.lower !== undefined && value.upper !== undefined && value.lower > value.upper) {
      report(`${pointer}/lower`, 'must not be greater than upper')
    }
  }
  if (type === 'lognormal') {
    need('median')
    need('sigma')
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

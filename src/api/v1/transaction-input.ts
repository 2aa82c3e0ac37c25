import { createError, isUnderstudyError, type ErrorDetail } from '../../errors/index.js'
import {
  originOf,
  readDefinition,
  type MockServiceDocument,
  type TransactionDsl,
} from '../../dsl/index.js'
import { collectCompileErrors, throwCompileErrors } from '../../match/index.js'
import { invalidField, validatorOf } from '../validation.js'

/*
 * Reading transaction bodies: the spec's resource fields with the failing member named, the DSL
 * through readDefinition (schema and semantic rules, every problem listed by JSON pointer), then
 * through the matcher compiler, so that a transaction that could never be served (a bad regex,
 * JSONPath or XPath) is refused when it is written rather than when a mock service deploys.
 */

/** A transaction ready to store. */
interface TransactionDraft {
  name: string
  description: string | null
  tags: string[]
  dsl: TransactionDsl
}

/** Longest tag name (tags are also records with this limit, see tags.ts). */
const TAG_MAX = 255

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Compiles a document's matchers; throws 400 ERR_DSL_INVALID listing every problem with its
 * pointer into the request (or file) it came from.
 *
 * @example
 * assertServable(readDefinition(body)) // throws for { url: { matcherName: 'matches', matchingValue: '(' } }
 */
export function assertServable(doc: MockServiceDocument): void {
  // each transaction's matchers, as compileMatcher compiles them, without its matching index
  const errors: ErrorDetail[] = []
  doc.transactions.forEach((txn, index) => collectCompileErrors(txn, index, errors))
  throwCompileErrors(errors)
}

/**
 * The tag names of a request, trimmed; a blank or overlong one is reported at `pointer/index`.
 *
 * @example
 * tagNamesOf([' smoke ', 'orders'], '/tags', report) // ['smoke', 'orders']
 */
export function tagNamesOf(
  tags: readonly string[] | undefined | null,
  pointer: string,
  report: (path: string, message: string) => void,
): string[] {
  const out: string[] = []
  tags?.forEach((raw, i) => {
    const name = raw.trim()
    if (name === '') report(`${pointer}/${i}`, 'must not be blank')
    else if (name.length > TAG_MAX) {
      report(`${pointer}/${i}`, `must be at most ${TAG_MAX} characters`)
    } else out.push(name)
  })
  return [...new Set(out)]
}

/** Throws 400 ERR_API_VALIDATION with every collected detail, when there is one. */
function throwIfAny(details: ErrorDetail[]): void {
  const first = details[0]
  if (first === undefined) return
  throw createError('ERR_API_VALIDATION', [`${first.path} ${first.message}`], { details })
}

/**
 * The transactions of `POST /transactions` (JSON): `{transactions: [...]}` as the mock services
 * specification shows, and also a bare array of transactions or a single transaction object. Ids,
 * `serviceId`, `serviceName` and `link` of the items are ignored: the query's `serviceId` decides,
 * and the store numbers new records. A missing `name` becomes `METHOD path`. Nothing is returned
 * unless every transaction is valid, so a batch is created whole or not at all.
 *
 * @example
 * readTransactionBatch({ transactions: [{ name: 'list', dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [] } } }] })
 */
export function readTransactionBatch(body: unknown): TransactionDraft[] {
  if (isObject(body) && 'transactions' in body) {
    if (!Array.isArray(body['transactions'])) {
      throw invalidField('/transactions', 'must be an array of transactions')
    }
    if (body['transactions'].length === 0) {
      throw invalidField('/transactions', 'must hold at least one transaction')
    }
  } else if (Array.isArray(body)) {
    if (body.length === 0) throw invalidField('', 'must hold at least one transaction')
  } else if (!isObject(body) || !('dsl' in body)) {
    throw invalidField(
      '/transactions',
      'is required: send {"transactions": [{"name", "description", "tags", "dsl"}]}',
    )
  }
  const doc = readDefinition(body)
  const details: ErrorDetail[] = []
  const drafts = doc.transactions.map((txn) => {
    const pointer = originOf(txn)?.pointer ?? ''
    return {
      name: txn.name,
      description: txn.description ?? null,
      tags: tagNamesOf(txn.tags, `${pointer}/tags`, (path, message) =>
        details.push({ path, message }),
      ),
      dsl: txn.dsl,
    }
  })
  throwIfAny(details)
  assertServable(doc)
  return drafts
}

/** The members of a PUT that change the transaction; undefined keeps the current value. */
interface TransactionChanges {
  id?: number
  name?: string
  /** null clears it. */
  description?: string | null
  tags?: string[]
  serviceId?: number
  dsl?: TransactionDsl
}

interface UpdateFields {
  id?: number
  name?: string | null
  description?: string | null
  tags?: string[] | null
  serviceId?: number | null
  dsl?: unknown
}

// The resource members of a Transaction; `serviceName`, `link`, `dslType` and timestamps a client
// sends back are read-only and ignored.
const readUpdateFields = validatorOf<UpdateFields>({
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    name: { type: ['string', 'null'], maxLength: 1000, pattern: '\\S' },
    description: { type: ['string', 'null'] },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    serviceId: { type: ['integer', 'null'], minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    dsl: { type: 'object' },
  },
})

/**
 * The body of `PUT /transactions/{id}`: a Transaction (as GET returns it). Every member is
 * optional: one left out (or null, except `description`) keeps its current value; `dsl`, when
 * given, is validated and compiled like a new transaction's (pointers `/dsl/...`).
 *
 * @example
 * readTransactionChanges({ name: 'renamed', tags: ['smoke'] })
 */
export function readTransactionChanges(body: unknown): TransactionChanges {
  const fields = readUpdateFields(body)
  const details: ErrorDetail[] = []
  const changes: TransactionChanges = {}
  if (fields.id !== undefined) changes.id = fields.id
  if (typeof fields.name === 'string') changes.name = fields.name
  if (fields.description !== undefined) {
    changes.description = fields.description === '' ? null : fields.description
  }
  if (Array.isArray(fields.tags)) {
    changes.tags = tagNamesOf(fields.tags, '/tags', (path, message) =>
      details.push({ path, message }),
    )
  }
  if (typeof fields.serviceId === 'number') changes.serviceId = fields.serviceId
  throwIfAny(details)
  if (fields.dsl !== undefined) {
    // readDefinition reads the body as one transaction, so pointers land on `/dsl/...`
    const doc = readDefinition({ dsl: fields.dsl })
    assertServable(doc)
    const txn = doc.transactions[0]
    if (txn !== undefined) changes.dsl = txn.dsl
  }
  return changes
}

/**
 * Names the file a compile error (ERR_DSL_INVALID) of imported transactions came from when its
 * details do not: their pointers lead into the imported document, not the file.
 *
 * @example
 * try { assertServable(result.document) } catch (err) { throw inFile(err, 'api.har') }
 */
export function inFile(err: unknown, file: string): unknown {
  if (!isUnderstudyError(err, 'ERR_DSL_INVALID') || err.message.includes(file)) return err
  const details = (err.details ?? []).map((d) => (d.file === undefined ? { ...d, file } : d))
  const count = details.length === 1 ? '1 error' : `${details.length} errors`
  return createError('ERR_DSL_INVALID', [`${file}: ${count}`], { cause: err, details })
}

import { createHash } from 'node:crypto'
import type { Transaction } from '../../dsl/index.js'
import { renderTransaction } from './render.js'

/**
 * The key under which the WireMock importer attaches to each transaction the stub mapping it came
 * from (importers/wiremock/index.ts `WIREMOCK_ORIGINAL`; a registered symbol because this area
 * may not import importers/).
 */
const WIREMOCK_ORIGINAL = Symbol.for('understudy.wiremock.original')

/** A stub of the runtime's own document (its files, `PUT /config`), as the admin API lists it. */
export interface DocumentStub {
  readonly id: string
  readonly json: Readonly<Record<string, unknown>>
  readonly transactions: readonly Transaction[]
}

/**
 * The runtime's own transactions as WireMock stubs: those imported from a WireMock mapping are
 * grouped by the mapping they came from and listed as it was written (with its `id`, or one made
 * from its content); the others are rendered by `renderTransaction`, with an id made from their
 * content, so that an id stays the same while the document does and a stub can be read, edited
 * or removed by it as WireMock allows for stubs loaded from files.
 *
 * @example
 * documentStubs(runtime.current().document.transactions)[0].json // the mapping file's JSON, with id and uuid
 */
export function documentStubs(transactions: readonly Transaction[]): DocumentStub[] {
  const groups = new Map<object, Transaction[]>()
  for (const txn of transactions) {
    const key = originalOf(txn) ?? txn
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [txn])
    else group.push(txn)
  }
  const seen = new Map<string, number>()
  const out: DocumentStub[] = []
  for (const [key, group] of groups) {
    const { body, given, digest } = describe(key, group[0] as Transaction)
    const id = given ?? contentId(digest, seen)
    const { id: _id, uuid: _uuid, ...rest } = body
    out.push({ id, json: { id, ...rest, uuid: id }, transactions: group })
  }
  return out
}

/**
 * A stub's JSON, given id and content digest, made once per stub or transaction object: the list
 * is made again after every change of the API's stubs, and a document may hold 100,000s.
 */
const described = new WeakMap<
  object,
  { body: Record<string, unknown>; given: string | undefined; digest: string }
>()

function describe(
  key: object,
  first: Transaction,
): { body: Record<string, unknown>; given: string | undefined; digest: string } {
  const known = described.get(key)
  if (known !== undefined) return known
  const body = originalOf(first) ?? renderTransaction(key as Transaction)
  const made = {
    body,
    given: givenId(body),
    digest: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
  }
  described.set(key, made)
  return made
}

function originalOf(txn: Transaction): Record<string, unknown> | undefined {
  const value = (txn as unknown as Record<symbol, unknown>)[WIREMOCK_ORIGINAL]
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

function givenId(stub: Record<string, unknown>): string | undefined {
  for (const key of ['id', 'uuid']) {
    const value = stub[key]
    if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase()
  }
  return undefined
}

/** A UUID made from the stub's JSON digest (and how many identical stubs came before it). */
function contentId(digest: string, seen: Map<string, number>): string {
  const n = seen.get(digest) ?? 0
  seen.set(digest, n + 1)
  const hex = n === 0 ? digest : createHash('sha256').update(`${digest}#${n}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16] ?? '0', 16) % 4] ?? '8'}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

import { stringify } from 'yaml'

/**
 * The document as YAML, one transaction at a time: the yaml library builds a node tree of its
 * whole input, which for a 100,000-entry HAR took minutes and over a GiB. Each transaction is
 * written by `blockItem` below when every value in it is one the yaml library would write in a
 * way this module reproduces exactly (most are), and by the library otherwise, so the text is the
 * same either way; writing through the library cost 60 % of a 100,000-entry import.
 *
 * @example
 * documentYaml({ transactions: [{ name: 'GET /a' }] }) // 'transactions:\n  - name: GET /a\n'
 */
export function documentYaml(doc: Record<string, unknown>): string {
  const { transactions, ...fields } = doc
  return [...documentYamlChunks(fields, Array.isArray(transactions) ? transactions : [])].join('')
}

/**
 * `documentYaml` of the fields and the transactions, in pieces (one per transaction), so that a
 * caller can write a large document without holding its whole text. `readable` maps each
 * transaction just before it is written.
 *
 * @example
 * for (const piece of documentYamlChunks({}, txns, readableTransaction)) await write(piece)
 */
export function* documentYamlChunks<T>(
  fields: Record<string, unknown>,
  transactions: readonly T[],
  readable: (txn: T) => unknown = (t) => t,
): Generator<string> {
  if (Object.keys(fields).length > 0) yield stringify(fields, { lineWidth: 0 })
  if (transactions.length === 0) {
    yield 'transactions: []\n'
    return
  }
  yield 'transactions:\n'
  for (const txn of transactions) yield transactionYaml(readable(txn))
}

/**
 * One transaction as an item of the `transactions:` sequence, indented by two spaces: what
 * `stringify([txn], { lineWidth: 0 })` gives with every line indented.
 */
export function transactionYaml(txn: unknown): string {
  const out: string[] = []
  if (blockItem(txn, '  - ', '    ', out, new Set())) return out.join('')
  return stringify([txn], { lineWidth: 0 }).replace(/^(?=.)/gm, '  ')
}

type Out = string[]

/**
 * Writes `value` as a block node whose first line starts with `lead` and whose other lines are
 * indented by `indent`. False when a value needs what only the yaml library does right
 * (multi-line or escaped strings, shared objects that it writes as aliases, unusual keys).
 */
function blockItem(
  value: unknown,
  lead: string,
  indent: string,
  out: Out,
  seen: Set<object>,
): boolean {
  if (Array.isArray(value) && value.length > 0) return blockSeq(value, lead, indent, out, seen)
  if (isRecord(value) && Object.values(value).some((v) => v !== undefined)) {
    return blockMap(value, lead, indent, out, seen)
  }
  const text = scalar(value, seen)
  if (text === undefined) return false
  out.push(`${lead}${text}\n`)
  return true
}

function blockSeq(
  items: readonly unknown[],
  lead: string,
  indent: string,
  out: Out,
  seen: Set<object>,
): boolean {
  if (seen.has(items)) return false
  seen.add(items)
  let first = true
  for (const item of items) {
    if (item === undefined) return false
    if (!blockItem(item, `${first ? lead : indent}- `, `${indent}  `, out, seen)) return false
    first = false
  }
  return true
}

function blockMap(
  record: Record<string, unknown>,
  lead: string,
  indent: string,
  out: Out,
  seen: Set<object>,
): boolean {
  if (seen.has(record)) return false
  seen.add(record)
  let first = true
  for (const key in record) {
    const value = record[key]
    if (value === undefined) continue // the yaml library leaves such keys out
    if (!plainKey.test(key) || coreTag.test(key)) return false
    const head = `${first ? lead : indent}${key}:`
    first = false
    if (
      (Array.isArray(value) && value.length > 0) ||
      (isRecord(value) && Object.values(value).some((v) => v !== undefined))
    ) {
      out.push(`${head}\n`)
      // sequences under a key are indented (the library's default indentSeq)
      if (!blockItem(value, `${indent}  `, `${indent}  `, out, seen)) return false
      continue
    }
    const text = scalar(value, seen)
    if (text === undefined) return false
    out.push(`${head} ${text}\n`)
  }
  return true
}

/** Keys written plain: the DSL's field names. */
const plainKey = /^[A-Za-z_][A-Za-z0-9_]*$/
/** Plain text the YAML 1.2 core schema would read as null, a boolean or a number (yaml's core tags). */
const coreTag =
  /^(?:~|[Nn]ull|NULL)?$|^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$|^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$|^0o[0-7]+$|^0x[0-9a-fA-F]+$/
/** What the yaml library refuses to write plain (its plainString test, less the multi-line cases). */
const notPlain = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/
/** One line of printable ASCII: the strings whose quoting this module reproduces. */
const printable = /^[\x20-\x7e]*$/

/** A scalar as the yaml library writes it as a block value, or undefined where it is not sure. */
function scalar(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return 'null'
  if (typeof value === 'object') {
    // an empty object met twice is written as an alias too
    if (seen.has(value)) return undefined
    seen.add(value)
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    return Number.isFinite(value) && !Object.is(value, -0) ? JSON.stringify(value) : undefined
  }
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined
  if (isRecord(value)) return Object.values(value).every((v) => v === undefined) ? '{}' : undefined
  if (typeof value !== 'string' || !printable.test(value)) return undefined
  // (a document marker, `---` or `%`, is written plain below the top level)
  if (!notPlain.test(value) && !coreTag.test(value)) return value
  // quoted: single quotes when the text holds a double quote and no single one, else double
  const hasDouble = value.includes('"')
  const hasSingle = value.includes("'")
  if (hasDouble && !hasSingle) return `'${value}'`
  if (!hasDouble && !value.includes('\\')) return `"${value}"`
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

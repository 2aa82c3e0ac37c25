import { createError, type ErrorDetail } from '../../errors/index.js'
import type { CompiledSearch } from '../repositories.js'
import {
  entities,
  entityAliases,
  type EntityDef,
  type FieldDef,
  type FieldType,
  type ListDef,
  type SearchDialect,
} from './search-entities.js'

/*
 * POST /api/v4/search (the administration specification, docs/api.md#search), compiled to ONE
 * parameterised SELECT over the store, in the SQL of the store's dialect (SQLite or PostgreSQL:
 * see `dialects`). Every identifier in the SQL comes from the entity tables
 * (search-entities.ts), never from the request; every value of the request is a bound parameter.
 * Nothing is loaded and filtered in JavaScript.
 */

const SEARCH_OPERATORS = ['$eq', '$ne', '$ilike', '$in', '$gt', '$gte', '$lt', '$lte'] as const
/** The operators a list (a transaction's tags) takes, on an item's name. */
const LIST_OPERATORS = ['$eq', '$ne', '$ilike', '$in'] as const
/** Most rows one search returns; `limit` 0, -1 or larger asks for this many (docs/api.md). */
const SEARCH_MAX_LIMIT = 1000
const MAX_CONDITIONS = 100
const MAX_DEPTH = 8

/** The validated request the API hands over. */
interface SearchRequest {
  entity: string
  fields?: unknown
  filters?: unknown
  ordering?: unknown
  skip?: number
  limit?: number
}

/** What the caller may see: the API decides it from the caller's memberships. */
export interface SearchScope {
  accountIds: readonly number[]
  workspaceIds: readonly number[]
}

/** A compiled search plus how to shape its flat rows back into hits. */
export interface CompiledSearchPlan extends CompiledSearch {
  limit: number
  skip: number
  /** Output key (`name`, `service.name`, `tags`) of each selected column, in order, and whether it is a boolean (stored 0/1) or a JSON array (a list). */
  outputs: Array<{ key: string; boolean: boolean; json: boolean }>
}

function invalid(path: string, message: string): Error {
  const detail: ErrorDetail = { path, message }
  return createError('ERR_API_VALIDATION', [`${path} ${message}`], { details: [detail] })
}

function entityOf(name: string, path: string): [string, EntityDef] {
  const key = entityAliases[name] ?? name
  const def = Object.hasOwn(entities, key) ? entities[key] : undefined
  if (def === undefined) throw invalid(path, `must be one of ${Object.keys(entities).join(', ')}`)
  return [key, def]
}

/**
 * The searchable data model, for GET /api/v4/search/metadata.
 *
 * @example
 * searchMetadata().entities.transactions.relations.service // 'services'
 */
export function searchMetadata() {
  const out: Record<
    string,
    {
      fields: Record<string, string>
      relations: Record<string, string>
      lists: Record<string, { entity: string; fields: string[]; operators: string[] }>
    }
  > = {}
  for (const [name, def] of Object.entries(entities)) {
    out[name] = {
      fields: Object.fromEntries(
        Object.entries(def.fields).map(([f, d]) => [
          f,
          d.type === 'timestamp' ? 'integer (epoch seconds)' : d.type,
        ]),
      ),
      relations: Object.fromEntries(Object.entries(def.relations).map(([r, d]) => [r, d.entity])),
      lists: Object.fromEntries(
        Object.entries(def.lists ?? {}).map(([l, d]) => [
          l,
          { entity: d.entity, fields: Object.keys(d.fields), operators: [...LIST_OPERATORS] },
        ]),
      ),
    }
  }
  return {
    entities: out,
    operators: [...SEARCH_OPERATORS, '$and', '$or'],
    maxLimit: SEARCH_MAX_LIMIT,
    entityAliases,
  }
}

/** What differs between the SQL of SQLite and of PostgreSQL, in the statements searches compile to. */
interface DialectSql {
  /** `expression` is one of `values`, bound as the one parameter `bound` holds. */
  inList: (expression: string, bound: string, type: FieldType) => string
  /** How a list of values is bound: a JSON text (json_each) or an array. */
  listValue: (values: readonly unknown[]) => unknown
  booleanValue: (value: boolean) => unknown
  /** `expression` differs from a value, NULL included. */
  isNot: (expression: string, bound: string) => string
  /** ASCII-case-insensitive LIKE with `\` as the escape. */
  like: (expression: string, bound: string) => string
  /** An ordering key that ignores ASCII case. */
  nocase: (expression: string) => string
  /** A JSON array of one object (`pairs`: `'key', value, ...`) per row of `from`. */
  jsonList: (pairs: string, from: string) => string
  /** A boolean column as the API reads it: 0 or 1. */
  selectBoolean: (expression: string) => string
}

/** The PostgreSQL type of a list of values of a field's type. */
const pgArrayType: Readonly<Record<FieldType, string>> = {
  string: 'TEXT',
  integer: 'BIGINT',
  timestamp: 'BIGINT',
  boolean: 'BOOLEAN',
}

const dialects: Readonly<Record<SearchDialect, DialectSql>> = {
  sqlite: {
    inList: (expression, bound) => `${expression} IN (SELECT value FROM json_each(${bound}))`,
    listValue: (values) => JSON.stringify(values),
    booleanValue: (value) => (value ? 1 : 0),
    isNot: (expression, bound) => `${expression} IS NOT ${bound}`,
    like: (expression, bound) => `${expression} LIKE ${bound} ESCAPE '\\'`,
    nocase: (expression) => `${expression} COLLATE NOCASE`,
    jsonList: (pairs, from) => `(SELECT json_group_array(json_object(${pairs})) FROM ${from})`,
    selectBoolean: (expression) => expression,
  },
  postgres: {
    inList: (expression, bound, type) =>
      `${expression} = ANY(CAST(${bound} AS ${pgArrayType[type]}[]))`,
    listValue: (values) => [...values],
    booleanValue: (value) => value,
    isNot: (expression, bound) => `${expression} IS DISTINCT FROM ${bound}`,
    // text columns are COLLATE "C": ILIKE then folds ASCII letters only, as SQLite's LIKE does
    like: (expression, bound) => `${expression} ILIKE ${bound} ESCAPE '\\'`,
    nocase: (expression) => `lower(${expression})`,
    jsonList: (pairs, from) =>
      `(SELECT coalesce(json_agg(json_build_object(${pairs})), '[]'::json) FROM ${from})`,
    selectBoolean: (expression) => `CAST(${expression} AS INTEGER)`,
  },
}

class Compiler {
  readonly params: Record<string, unknown> = {}
  readonly joins = new Map<string, string>()
  private n = 0
  private conditions = 0

  constructor(
    readonly def: EntityDef,
    readonly dialect: SearchDialect,
    readonly sql: DialectSql = dialects[dialect],
  ) {}

  bind(value: unknown): string {
    const name = `p${this.n++}`
    this.params[name] = value
    return `@${name}`
  }

  /** The SQL expression of `field` or `relation.field`, joining the relation when first used. */
  expression(ref: string, path: string): { sql: string; type: FieldType } {
    const dot = ref.indexOf('.')
    if (dot === -1) {
      const field = Object.hasOwn(this.def.fields, ref) ? this.def.fields[ref] : undefined
      if (field === undefined) this.refuseList(ref, path)
      if (field === undefined) {
        throw invalid(
          path,
          `is not a field of this entity (expected one of ${Object.keys(this.def.fields).join(', ')})`,
        )
      }
      return { sql: columnSql('e', field, this.dialect), type: field.type }
    }
    const relation = ref.slice(0, dot)
    const fieldName = ref.slice(dot + 1)
    this.refuseList(relation, path)
    const alias = this.join(relation, path)
    const target = entities[this.def.relations[relation]!.entity]!
    const field = Object.hasOwn(target.fields, fieldName) ? target.fields[fieldName] : undefined
    if (field === undefined) {
      throw invalid(
        path,
        `is not a field of ${relation} (expected one of ${Object.keys(target.fields).join(', ')})`,
      )
    }
    return { sql: columnSql(alias, field, this.dialect), type: field.type }
  }

  join(relation: string, path: string): string {
    const rel = Object.hasOwn(this.def.relations, relation)
      ? this.def.relations[relation]
      : undefined
    if (rel === undefined) {
      throw invalid(
        path,
        `names no relation of this entity (expected one of ${Object.keys(this.def.relations).join(', ') || 'none'})`,
      )
    }
    const alias = `r_${relation}`
    if (!this.joins.has(relation)) {
      this.joins.set(
        relation,
        `LEFT JOIN ${entities[rel.entity]!.table} ${alias} ON ${'on' in rel ? rel.on(alias, this.dialect) : `${alias}.id = e.${rel.column}`}`,
      )
    }
    return alias
  }

  /** A list used where one value is needed (ordering, `tags.id` as a field of the row): 400. */
  refuseList(name: string, path: string): void {
    if (this.listOf(name) !== undefined) {
      throw invalid(
        path,
        `is a list: it filters (${LIST_OPERATORS.join(', ')} on an item's name) and shows (fields ${name}.*), but cannot order`,
      )
    }
  }

  listOf(name: string): ListDef | undefined {
    return this.def.lists !== undefined && Object.hasOwn(this.def.lists, name)
      ? this.def.lists[name]
      : undefined
  }

  /** A condition on a list (`tags` or `tags.name`): one of its items satisfies it; `$ne`: none is equal. */
  listCondition(list: ListDef, op: string, operand: unknown, path: string): string {
    const exists = (condition: string): string =>
      `EXISTS (SELECT 1 FROM ${list.link.from} WHERE ${list.link.on} AND ${condition})`
    if (op === '$eq' && operand === null) return `NOT ${exists('TRUE')}`
    if (op === '$ne' && operand === null) return exists('TRUE')
    if (op === '$ne') {
      return `NOT ${exists(this.condition('m.name', 'string', '$eq', operand, path))}`
    }
    if (!(LIST_OPERATORS as readonly string[]).includes(op)) {
      throw invalid(
        path,
        `is not an operator on a list (expected one of ${LIST_OPERATORS.join(', ')})`,
      )
    }
    return exists(this.condition('m.name', 'string', op, operand, path))
  }

  filter(node: unknown, path: string, depth: number): string {
    if (depth > MAX_DEPTH) throw invalid(path, `nests deeper than ${MAX_DEPTH} levels`)
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw invalid(path, 'must be an object of conditions')
    }
    const parts: string[] = []
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${escapePointer(key)}`
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || value.length === 0) {
          throw invalid(at, 'must be a non-empty array of conditions')
        }
        const inner = value.map((v, i) => this.filter(v, `${at}/${i}`, depth + 1))
        parts.push(`(${inner.join(key === '$and' ? ' AND ' : ' OR ')})`)
      } else if (key.startsWith('$')) {
        throw invalid(at, `is not an operator here (expected a field name, $and or $or)`)
      } else if (this.listOf(key.replace(/\.name$/, '')) !== undefined) {
        const list = this.listOf(key.replace(/\.name$/, ''))!
        const ops =
          typeof value === 'object' && value !== null && !Array.isArray(value)
            ? Object.entries(value)
            : [['$eq', value] as [string, unknown]]
        if (ops.length === 0) throw invalid(at, 'must hold an operator')
        for (const [op, operand] of ops) {
          parts.push(
            this.listCondition(
              list,
              op,
              operand,
              typeof value === 'object' && value !== null && !Array.isArray(value)
                ? `${at}/${escapePointer(op)}`
                : at,
            ),
          )
        }
      } else {
        const { sql, type } = this.expression(key, at)
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          const ops = Object.entries(value)
          if (ops.length === 0) throw invalid(at, 'must hold an operator')
          for (const [op, operand] of ops) {
            parts.push(this.condition(sql, type, op, operand, `${at}/${escapePointer(op)}`))
          }
        } else {
          parts.push(this.condition(sql, type, '$eq', value, at))
        }
      }
    }
    if (parts.length === 0) return 'TRUE'
    return parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`
  }

  condition(sql: string, type: FieldType, op: string, operand: unknown, path: string): string {
    if (++this.conditions > MAX_CONDITIONS) {
      throw invalid(path, `is one condition too many (at most ${MAX_CONDITIONS})`)
    }
    switch (op) {
      case '$eq':
      case '$ne':
        if (operand === null) return `${sql} IS ${op === '$eq' ? '' : 'NOT '}NULL`
        {
          const bound = this.bind(this.value(type, operand, path))
          return op === '$eq' ? `${sql} = ${bound}` : this.sql.isNot(sql, bound)
        }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const symbol = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op]
        if (type === 'boolean') throw invalid(path, 'does not apply to a boolean field')
        return `${sql} ${symbol} ${this.bind(this.value(type, operand, path))}`
      }
      case '$ilike': {
        if (type !== 'string') throw invalid(path, 'applies only to text fields')
        if (typeof operand !== 'string' || operand.length > 1000) {
          throw invalid(path, 'must be a string of at most 1000 characters')
        }
        return this.sql.like(sql, this.bind(likePattern(operand)))
      }
      case '$in': {
        if (!Array.isArray(operand) || operand.length > 1000) {
          throw invalid(path, 'must be an array of at most 1000 values')
        }
        const values = operand.map((v, i) => this.value(type, v, `${path}/${i}`))
        return this.sql.inList(sql, this.bind(this.sql.listValue(values)), type)
      }
      default:
        throw invalid(path, `is not an operator (expected one of ${SEARCH_OPERATORS.join(', ')})`)
    }
  }

  /** A request's value as bound: booleans in the dialect's form. */
  value(type: FieldType, value: unknown, path: string): unknown {
    const checked = valueOf(type, value, path)
    return type === 'boolean' ? this.sql.booleanValue(checked === 1) : checked
  }
}

function columnSql(alias: string, field: FieldDef, dialect: SearchDialect): string {
  if (field.sql !== undefined) return field.sql(alias, dialect)
  // Timestamps are kept in epoch ms and shown (and compared) in epoch seconds, as v4 shows them.
  return field.type === 'timestamp'
    ? `(${alias}.${field.column} / 1000)`
    : `${alias}.${field.column}`
}

function valueOf(type: FieldType, value: unknown, path: string): string | number {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw invalid(path, 'must be a string')
      return value
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(path, 'must be a boolean')
      return value ? 1 : 0
    case 'integer':
    case 'timestamp':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw invalid(path, 'must be an integer')
      }
      return value
  }
}

/** `$ilike`: `%` is the wildcard; a value without one matches as a substring. `_` and `\` are literal. */
function likePattern(value: string): string {
  const escaped = value.replace(/[\\_]/g, (c) => `\\${c}`)
  return value.includes('%') ? escaped : `%${escaped}%`
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

function scopeSql(c: Compiler, scope: SearchScope): string {
  const inWorkspaces = (expression: string): string =>
    c.sql.inList(expression, c.bind(c.sql.listValue(scope.workspaceIds)), 'integer')
  const inAccounts = (expression: string): string =>
    c.sql.inList(expression, c.bind(c.sql.listValue(scope.accountIds)), 'integer')
  switch (c.def.scope) {
    // One workspace (the common case) as an equality, which the planner serves best.
    case 'workspace':
      return scope.workspaceIds.length === 1
        ? `e.workspace_id = ${c.bind(scope.workspaceIds[0])}`
        : inWorkspaces('e.workspace_id')
    case 'self-workspace':
      return inWorkspaces('e.id')
    case 'account':
      return inAccounts('e.account_id')
    case 'self-account':
      return inAccounts('e.id')
    case 'user':
      return `EXISTS (SELECT 1 FROM account_members m WHERE m.user_id = e.id AND ${inAccounts('m.account_id')})`
    case 'bucket':
      return `e.bucket_key IN (SELECT b.key FROM monitor_buckets b WHERE ${inWorkspaces('b.workspace_id')})`
  }
}

/**
 * Compiles a search request for the caller's scope, or throws 400 ERR_API_VALIDATION naming the
 * failing part of the request (`/filters/$or/1/name/$like`).
 *
 * @example
 * compileSearch({ entity: 'transactions', filters: { name: { $ilike: 'pet' } }, ordering: [{ updated: -1 }], limit: 50 }, { accountIds: [1], workspaceIds: [1] })
 */
export function compileSearch(
  request: SearchRequest,
  scope: SearchScope,
  dialect: SearchDialect = 'sqlite',
): CompiledSearchPlan {
  const [, def] = entityOf(request.entity, '/entity')
  const c = new Compiler(def, dialect)
  const where = [scopeSql(c, scope)]
  if (request.filters !== undefined && request.filters !== null) {
    where.push(c.filter(request.filters, '/filters', 0))
  }
  // Ordering: [{ name: 1 }, { updated: -1 }] (the administration specification), or 'name' /
  // '-updated'.
  const ordering = request.ordering ?? []
  if (!Array.isArray(ordering) || ordering.length > 5) {
    throw invalid('/ordering', 'must be an array of at most 5 orderings')
  }
  const keys: Array<{ sql: string; direction: 'ASC' | 'DESC'; nocase: boolean }> = []
  for (const [i, o] of ordering.entries()) {
    let ref: string
    let direction: number
    if (typeof o === 'string') {
      ref = o.replace(/^[-+]/, '')
      direction = o.startsWith('-') ? -1 : 1
    } else if (
      typeof o === 'object' &&
      o !== null &&
      !Array.isArray(o) &&
      Object.keys(o).length === 1
    ) {
      const [entry] = Object.entries(o)
      ref = entry![0]
      direction = entry![1] as number
      if (direction !== 1 && direction !== -1) {
        throw invalid(`/ordering/${i}/${escapePointer(ref)}`, 'must be 1 or -1')
      }
    } else {
      throw invalid(`/ordering/${i}`, 'must be an object mapping one field to 1 or -1')
    }
    const { sql, type } = c.expression(ref, `/ordering/${i}`)
    // Timestamps order by their stored milliseconds: the same order, and an index can serve it.
    keys.push({
      sql: type === 'timestamp' ? sql.replace(/^\((.*) \/ 1000\)$/, '$1') : sql,
      direction: direction === -1 ? 'DESC' : 'ASC',
      nocase: type === 'string',
    })
  }
  const idDirection = keys[0]?.direction ?? 'ASC'
  // Joins the filter and the ordering need are made while scanning; those only the fields need, for the page alone.
  const scanJoins = [...c.joins.values()].join(' ')

  // Fields: `*`, `name`, `relation.*`, `relation.name`.
  const fields = request.fields ?? ['*']
  if (!Array.isArray(fields) || fields.length > 100) {
    throw invalid('/fields', 'must be an array of at most 100 field names')
  }
  const selected = new Map<string, { sql: string; type: FieldType | 'json' }>()
  // Lists shown: list name -> the item fields asked for.
  const shownLists = new Map<string, Set<string>>()
  for (const [i, f] of fields.entries()) {
    if (typeof f !== 'string') throw invalid(`/fields/${i}`, 'must be a string')
    const dot = f.indexOf('.')
    const list = dot === -1 ? undefined : c.listOf(f.slice(0, dot))
    if (list !== undefined) {
      const name = f.slice(0, dot)
      const item = f.slice(dot + 1)
      if (item !== '*' && !Object.hasOwn(list.fields, item)) {
        throw invalid(
          `/fields/${i}`,
          `is not a field of ${name} (expected one of *, ${Object.keys(list.fields).join(', ')})`,
        )
      }
      const shown = shownLists.get(name) ?? new Set<string>()
      for (const field of item === '*' ? Object.keys(list.fields) : [item]) shown.add(field)
      shownLists.set(name, shown)
    } else if (f === '*') {
      for (const name of Object.keys(def.fields)) {
        selected.set(name, c.expression(name, `/fields/${i}`))
      }
    } else if (f.endsWith('.*')) {
      const relation = f.slice(0, -2)
      c.join(relation, `/fields/${i}`)
      const target = entities[def.relations[relation]!.entity]!
      for (const name of Object.keys(target.fields)) {
        selected.set(`${relation}.${name}`, c.expression(`${relation}.${name}`, `/fields/${i}`))
      }
    } else {
      selected.set(f, c.expression(f, `/fields/${i}`))
    }
  }
  for (const [name, shown] of shownLists) {
    const list = c.listOf(name)!
    const items = [...shown].map((field) => `'${field}', ${list.fields[field]!}`).join(', ')
    selected.set(name, {
      sql: c.sql.jsonList(items, `${list.rows} ${list.catalog}`),
      type: 'json',
    })
  }
  const keyName = def.key ?? 'id'
  const keyField = def.fields[keyName]!
  selected.set(keyName, { sql: columnSql('e', keyField, dialect), type: keyField.type })
  const skip = request.skip ?? 0
  const rawLimit = request.limit ?? 50
  const limit = rawLimit <= 0 || rawLimit > SEARCH_MAX_LIMIT ? SEARCH_MAX_LIMIT : rawLimit
  const outputs = [...selected].map(([key, { type }]) => ({
    key,
    boolean: type === 'boolean',
    json: type === 'json',
  }))
  const columns = [...selected.values()]
    .map(({ sql, type }, i) => `${type === 'boolean' ? c.sql.selectBoolean(sql) : sql} AS c${i}`)
    .join(', ')
  const orderOf = (prefix: string): string =>
    [
      ...keys.map(
        (k, i) => `${k.nocase ? c.sql.nocase(`${prefix}o${i}`) : `${prefix}o${i}`} ${k.direction}`,
      ),
      `${prefix}__key ${idDirection}`,
    ].join(', ')
  /*
   * Three steps in one statement: `hits` scans for the matching ids and their sort keys (for a
   * name filter ordered by time, from a covering index, without reading the rows), `page` sorts
   * and cuts them, and only the page's rows are read in full. The total is counted from `hits`.
   */
  const hits = `hits AS MATERIALIZED (SELECT e.${keyField.column} AS __key${keys.map((k, i) => `, ${k.sql} AS o${i}`).join('')} FROM ${def.table} e ${scanJoins} WHERE ${where.join(' AND ')})`
  const page = `page AS MATERIALIZED (SELECT * FROM hits ORDER BY ${orderOf('')} LIMIT @__limit OFFSET @__skip)`
  return {
    sql: `WITH ${hits}, ${page} SELECT ${columns}, (SELECT COUNT(*) FROM hits) AS __total FROM page p JOIN ${def.table} e ON e.${keyField.column} = p.__key ${[...c.joins.values()].join(' ')} ORDER BY ${orderOf('p.')}`,
    countSql: `WITH ${hits} SELECT COUNT(*) AS n FROM hits`,
    params: { ...c.params, __limit: limit, __skip: skip },
    limit,
    skip,
    outputs,
  }
}

import { DEFAULT_PRIORITY, joinPointer, type DslInput } from '../../src/dsl/index.js'
import { finishDrafts, resultOf, type Draft } from '../shared/build.js'
import { detailAt, guardImport, importInvalid } from '../shared/errors.js'
import { isObject, parseStructured, str, type Loose } from '../shared/structured.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { requestOfPostman, responseOfExample } from './example.js'
import { scopeWith, type Scope } from './variables.js'

// Folders nest; a collection deeper than this is malformed or hostile.
const MAX_DEPTH = 64

/** Shared state of one walk through a collection. */
interface Walk {
  file: string
  drafts: Draft[]
  warnings: ImportWarning[]
}

/**
 * Imports a Postman collection (v2.0 or v2.1): every saved example response (`item[].response[]`,
 * matched on its `originalRequest`) becomes a transaction named `folder / request / example`.
 * `{{variables}}` come from the collection's (and folders') `variable` lists; an unknown one in the
 * path matches any segment. A request without saved examples becomes a placeholder answering
 * 200 with JSON (its own JSON request body, else `{}`; an empty body would make collection test
 * scripts calling `pm.response.json()` throw), with a warning. Collection v1 is refused with a
 * message saying how to convert it.
 *
 * @example
 * importPostman({ bytes, fileName: 'api.postman_collection.json' }).document.transactions.map((t) => t.name)
 * // ['forecast / Get Forecast / East', ...]
 */
export function importPostman(input: ImportInput, _ctx: ImportContext = {}): ImportResult {
  const parsed = parseStructured(input)
  return guardImport(input.fileName, () => {
    const value = parsed.value
    if (!isObject(value)) {
      throw importInvalid(
        input.fileName,
        'expected a Postman collection (an object with "info" and "item")',
      )
    }
    if (!Array.isArray(value['item'])) {
      if (Array.isArray(value['requests'])) {
        throw importInvalid(
          input.fileName,
          'is a Postman Collection v1, which is not supported: open it in Postman and export it as Collection v2.1 (or convert it with postman-collection-transformer)',
        )
      }
      throw importInvalid(
        input.fileName,
        'expected a Postman collection v2.0 or v2.1 (an object with "info" and an "item" array)',
        [detailAt(input.fileName, '/item', 'must be an array', parsed.locate)],
      )
    }
    const walk: Walk = { file: input.fileName, drafts: [], warnings: [] }
    // v2 collections use `variable`; some exporters wrote `variables`
    const scope = scopeWith(scopeWith(new Map(), value['variables']), value['variable'])
    walkItems(value['item'], '/item', [], scope, walk, 0)
    if (walk.drafts.length === 0) {
      walk.warnings.push({ message: 'contains no requests', file: input.fileName })
    }
    const transactions = finishDrafts(walk.drafts, {
      file: input.fileName,
      locate: parsed.locate,
      warnings: walk.warnings,
    })
    return resultOf('postman', 'POSTMAN_DSL', transactions, walk.warnings)
  })
}

function walkItems(
  items: unknown[],
  pointer: string,
  folders: string[],
  scope: Scope,
  walk: Walk,
  depth: number,
): void {
  if (depth > MAX_DEPTH) {
    throw importInvalid(walk.file, `folders are nested more than ${MAX_DEPTH} levels deep`, [
      { path: pointer, message: 'nested too deep', file: walk.file },
    ])
  }
  items.forEach((item, i) => {
    const at = joinPointer(pointer, i)
    if (!isObject(item)) {
      walk.warnings.push({ message: 'is not an item object; skipped', file: walk.file, at })
      return
    }
    const name = str(item['name']) ?? `item ${i + 1}`
    const itemScope = scopeWith(scope, item['variable'])
    if (Array.isArray(item['item'])) {
      walkItems(
        item['item'],
        joinPointer(at, 'item'),
        [...folders, name],
        itemScope,
        walk,
        depth + 1,
      )
    } else if (item['request'] !== undefined) {
      requestItem(item, at, [...folders, name], itemScope, walk)
    } else {
      walk.warnings.push({
        message: `item "${name}" has neither "request" nor "item"; skipped`,
        file: walk.file,
        at,
      })
    }
  })
}

/** One request item: a transaction per saved example, or one placeholder. */
function requestItem(item: Loose, at: string, path: string[], scope: Scope, walk: Walk): void {
  const itemName = path.join(' / ')
  const examples = Array.isArray(item['response']) ? item['response'] : []
  const description = descriptionOf(item['request'])
  const entries: Array<{
    draft: Draft
    queryCount: number
    success: number
    index: number
    signature: string
    name: string
    exampleName: string
  }> = []
  examples.forEach((example, index) => {
    const exampleAt = joinPointer(joinPointer(at, 'response'), index)
    if (!isObject(example)) return
    const exampleName = str(example['name']) ?? `example ${index + 1}`
    const name = `${itemName} / ${exampleName}`
    const notes: string[] = []
    const request = requestOfPostman(example['originalRequest'] ?? item['request'], scope)
    notes.push(...request.notes)
    const responseDsl = responseOfExample(example, scope, notes)
    const dsl: DslInput = {
      priority: priorityOf(request.wildcard, false),
      requestDsl: request.requestDsl,
      responseDsl,
    }
    for (const note of notes) {
      walk.warnings.push({ message: `example "${name}": ${note}`, file: walk.file, at: exampleAt })
    }
    const draft: Draft = { name, dsl, pointer: exampleAt, label: `example "${name}"` }
    if (description !== undefined) draft.description = description
    const { sampleBody: _sample, ...matchers } = request.requestDsl
    const status = responseDsl.status ?? 200
    entries.push({
      draft,
      queryCount: request.requestDsl.queryParams?.length ?? 0,
      success: status >= 200 && status < 300 ? 1 : 0,
      index,
      signature: JSON.stringify(matchers),
      name,
      exampleName,
    })
  })
  if (entries.length === 0) {
    const request = requestOfPostman(item['request'], scope)
    const name = itemName
    for (const note of request.notes) {
      walk.warnings.push({ message: `request "${name}": ${note}`, file: walk.file, at })
    }
    const echoed = jsonBodyOf(request.requestDsl.sampleBody)
    walk.warnings.push({
      message: `request "${name}" has no saved example response; it is imported as a placeholder answering 200 with ${echoed === undefined ? 'an empty JSON object {}' : 'the JSON body of the request'} (application/json, so that test scripts calling pm.response.json() can run; save an example in Postman to mock a real answer)`,
      file: walk.file,
      at,
    })
    const draft: Draft = {
      name,
      dsl: {
        priority: priorityOf(request.wildcard, true),
        requestDsl: request.requestDsl,
        responseDsl: { status: 200, json: echoed ?? {} },
      },
      pointer: at,
      label: `request "${name}"`,
    }
    if (description !== undefined) draft.description = description
    walk.drafts.push(draft)
    return
  }
  // Among equal priorities the later definition wins, so the example that should answer goes
  // last: examples with more query parameters (more specific) after those with fewer; among
  // examples that match the very same requests, a 2xx one, then the one saved first. Unrelated
  // examples keep their saved order. The examples a tie hides stay reachable the way Postman's
  // mock servers offer: a request header `x-mock-response-name: <example name>`.
  entries.sort((a, b) => a.queryCount - b.queryCount)
  const groups = new Map<string, number[]>()
  entries.forEach((e, i) => groups.set(e.signature, [...(groups.get(e.signature) ?? []), i]))
  for (const positions of groups.values()) {
    if (positions.length < 2) continue
    const members = positions.map((i) => entries[i]).filter((e) => e !== undefined)
    members.sort((a, b) => a.success - b.success || b.index - a.index)
    positions.forEach((position, k) => {
      const member = members[k]
      if (member !== undefined) entries[position] = member
    })
  }
  const seen = new Map<string, string>()
  for (const entry of [...entries].reverse()) {
    const winner = seen.get(entry.signature)
    if (winner === undefined) {
      seen.set(entry.signature, entry.name)
      continue
    }
    const exampleName = entry.exampleName
    const request = entry.draft.dsl.requestDsl
    request.headers = [
      ...(request.headers ?? []),
      { key: 'x-mock-response-name', matcherName: 'equals', matchingValue: exampleName },
    ]
    entry.draft.dsl.priority = (entry.draft.dsl.priority ?? DEFAULT_PRIORITY) - 1
    walk.warnings.push({
      message: `example "${entry.name}" matches the same requests as "${winner}", which answers them; this one answers requests with the header x-mock-response-name: ${exampleName}`,
      file: walk.file,
      at: entry.draft.pointer,
    })
  }
  for (const entry of entries) walk.drafts.push(entry.draft)
}

/**
 * The request's own body when it is a JSON object or array (what a create or update commonly
 * answers), for a placeholder to answer; undefined otherwise.
 */
function jsonBodyOf(sample: string | null | undefined): unknown {
  if (typeof sample !== 'string' || !/^\s*[[{]/.test(sample)) return undefined
  try {
    return JSON.parse(sample) as unknown
  } catch {
    return undefined
  }
}

/**
 * Literal paths rank above wildcard ones (`/users/me` before `/users/{{id}}`), and saved examples
 * above placeholders, whatever their order in the collection.
 */
function priorityOf(wildcard: boolean, placeholder: boolean): number {
  return DEFAULT_PRIORITY + (wildcard ? 1 : 0) + (placeholder ? 1 : 0)
}

function descriptionOf(request: unknown): string | undefined {
  if (!isObject(request)) return undefined
  const d = request['description']
  const text = typeof d === 'string' ? d : isObject(d) ? str(d['content']) : undefined
  return text === undefined || text.trim() === '' ? undefined : text
}

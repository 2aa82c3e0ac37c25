import { posix } from 'node:path'
import { pointerSegments } from '../../src/dsl/index.js'
import { parseStructured } from '../shared/index.js'

type Json = Record<string, unknown>

/**
 * True for a plain object (not an array, not null).
 *
 * @example
 * isObject({}) // true
 * isObject([]) // false
 */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A node after following its `$ref` chain, and the last reference followed (for names and cycles). */
interface Resolved {
  value: unknown
  /** Root-relative reference (`#/components/schemas/Pet`, `common.yaml#/Pet`); undefined when `node` was not a reference. */
  ref?: string
}

interface ResolverOptions {
  /** The input's name; a reference to its base name points back at the main document. */
  fileName: string
  /** Reads a file relative to the input's directory (ImportContext.readFile). */
  readFile?: ((relativePath: string) => Uint8Array | undefined) | undefined
  /** Reports a reference that cannot be followed, once per reference. */
  warn: (message: string, at?: string) => void
}

/**
 * Follows `$ref`s lazily, one at a time, as the importer walks the document: the document is never
 * dereferenced up front, which would copy shared schemas once per use (GitHub's 13 MB description
 * grows to 73 MB that way) and cannot represent recursive schemas at all.
 *
 * References are internal (`#/components/schemas/Pet`, with JSON-pointer `~0`/`~1` and
 * percent-escapes), or to other files (`pet.yaml`, `defs/common.json#/Error`) read through
 * `readFile` and parsed as JSON or YAML once. When another file is loaded, its references are
 * rewritten relative to the root, so that every reference the importer meets is root-relative
 * and can be followed without knowing which file it was written in. Remote (`https:`) references
 * and `$id`/anchor references are not followed: each is reported once and treated as absent.
 *
 * @example
 * const resolver = new RefResolver(doc, { fileName: 'api.yaml', warn })
 * resolver.deref({ $ref: '#/components/schemas/Pet' }) // { value: { type: 'object', ... }, ref: '#/components/schemas/Pet' }
 */
export class RefResolver {
  private readonly files = new Map<string, unknown>()
  private readonly reported = new Set<string>()
  private readonly mainName: string

  constructor(
    private readonly main: unknown,
    private readonly options: ResolverOptions,
  ) {
    this.mainName = posix.basename(options.fileName.replace(/\\/g, '/'))
  }

  /**
   * Follows `node`'s `$ref` chain to a value. Keywords written beside a `$ref` (allowed in 3.1,
   * common in 3.0 descriptions such as `description`, `nullable`) are laid over the target.
   * Returns undefined, after a warning, when a reference is dangling or loops on itself.
   */
  deref(node: unknown, at?: string): Resolved | undefined {
    let current = node
    let ref: string | undefined
    const seen = new Set<string>()
    while (isObject(current) && typeof current['$ref'] === 'string') {
      const next: string = current['$ref']
      if (seen.has(next)) {
        this.report(
          `$ref "${next}" refers to itself through a chain of references; it is treated as absent`,
          next,
          at,
        )
        return undefined
      }
      seen.add(next)
      const target = this.get(next, at)
      if (target === undefined) return undefined
      const siblings = Object.keys(current).filter((k) => k !== '$ref')
      if (siblings.length > 0 && isObject(target)) {
        const merged: Json = { ...target }
        for (const k of siblings) merged[k] = current[k]
        if (typeof target['$ref'] !== 'string') delete merged['$ref']
        current = merged
      } else {
        current = target
      }
      ref = next
    }
    return ref === undefined ? { value: current } : { value: current, ref }
  }

  /** The value a root-relative reference points at; undefined (after a warning) when it cannot be found. */
  get(ref: string, at?: string): unknown {
    const hash = ref.indexOf('#')
    const file = hash === -1 ? ref : ref.slice(0, hash)
    const fragment = hash === -1 ? '' : ref.slice(hash + 1)
    if (/^[a-z][a-z0-9+.-]*:/i.test(file) || file.startsWith('//')) {
      this.report(
        `$ref "${ref}" is remote; Understudy reads no network, so it is treated as absent`,
        ref,
        at,
      )
      return undefined
    }
    if (fragment !== '' && !fragment.startsWith('/')) {
      this.report(
        `$ref "${ref}" uses an anchor, which is not supported; it is treated as absent`,
        ref,
        at,
      )
      return undefined
    }
    const doc = file === '' ? this.main : this.load(file, ref, at)
    if (doc === undefined) return undefined
    let value: unknown = doc
    for (const raw of pointerSegments(fragment)) {
      const segment = safeDecode(raw)
      if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)]
      else if (isObject(value) && Object.hasOwn(value, segment)) value = value[segment]
      else value = undefined
      if (value === undefined) {
        this.report(`$ref "${ref}" points at nothing`, ref, at)
        return undefined
      }
    }
    return value
  }

  /** Reads a file relative to the root (for `externalValue` examples); undefined when it cannot. */
  readRaw(relativePath: string): Uint8Array | undefined {
    if (this.options.readFile === undefined) return undefined
    return this.options.readFile(normalizeFile(relativePath))
  }

  private load(file: string, ref: string, at: string | undefined): unknown {
    const path = normalizeFile(file)
    if (path === this.mainName) return this.main
    if (this.files.has(path)) return this.files.get(path)
    const bytes = this.options.readFile?.(path)
    if (bytes === undefined) {
      this.files.set(path, undefined)
      const why =
        this.options.readFile === undefined
          ? 'only a directory or an archive can supply other files'
          : 'the file does not exist'
      this.report(
        `$ref "${ref}" names the file ${path}, which cannot be read (${why}); it is treated as absent`,
        ref,
        at,
      )
      return undefined
    }
    // A syntax error in a referenced file is reported as ERR_IMPORT_INVALID naming that file.
    const value = parseStructured({ bytes, fileName: path }).value
    rebaseRefs(value, path, this.mainName, new WeakSet())
    this.files.set(path, value)
    return value
  }

  private report(message: string, ref: string, at: string | undefined): void {
    if (this.reported.has(ref)) return
    this.reported.add(ref)
    this.options.warn(message, at)
  }
}

/** The members an Example Object (OpenAPI 3.x `components/examples`) may have. */
const exampleObjectKeys = new Set(['summary', 'description', 'value', 'externalValue'])

/** References followed for one example value: beyond this, a chain is broken or hostile. */
const MAX_EXAMPLE_HOPS = 8

/**
 * An example value written as a reference, `value: {$ref: '#/components/examples/issue'}` (29
 * operations of GitHub's description do this): the value it points at. When the target is an
 * Example Object, its own `value` is the example (and may be a reference in turn). Any other
 * value is returned as it is; a reference that cannot be followed gives undefined (after the
 * resolver's warning), so the caller falls back to the schema.
 *
 * @example
 * exampleValueOf({ $ref: '#/components/examples/issue' }, resolver) // { id: 1, title: 'Found a bug', ... }
 */
export function exampleValueOf(value: unknown, resolver: RefResolver, at?: string): unknown {
  let current = value
  for (
    let hops = 0;
    isObject(current) && typeof current['$ref'] === 'string' && Object.keys(current).length === 1;
    hops++
  ) {
    if (hops === MAX_EXAMPLE_HOPS) return undefined
    const target = resolver.deref(current, at)
    if (target === undefined) return undefined
    const found = target.value
    current =
      isObject(found) &&
      'value' in found &&
      Object.keys(found).every((k) => exampleObjectKeys.has(k))
        ? found['value']
        : found
  }
  return current
}

function normalizeFile(file: string): string {
  const normal = posix.normalize(safeDecode(file).replace(/\\/g, '/'))
  return normal.startsWith('./') ? normal.slice(2) : normal
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Rewrites the references of a file loaded from `path` so that they are relative to the root:
 * `#/Pet` becomes `defs/common.yaml#/Pet`, `other.yaml` becomes `defs/other.yaml`.
 */
function rebaseRefs(node: unknown, path: string, mainName: string, seen: WeakSet<object>): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return
  seen.add(node)
  if (Array.isArray(node)) {
    for (const item of node) rebaseRefs(item, path, mainName, seen)
    return
  }
  const record = node as Json
  for (const [key, value] of Object.entries(record)) {
    if (key === '$ref' && typeof value === 'string') record[key] = rebase(value, path, mainName)
    else rebaseRefs(value, path, mainName, seen)
  }
}

function rebase(ref: string, path: string, mainName: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('//')) return ref
  const hash = ref.indexOf('#')
  const file = hash === -1 ? ref : ref.slice(0, hash)
  const fragment = hash === -1 ? '' : ref.slice(hash)
  const target = file === '' ? path : posix.join(posix.dirname(path), file)
  const normal = normalizeFile(target)
  return (normal === mainName ? '' : normal) + (fragment === '' ? '#' : fragment)
}

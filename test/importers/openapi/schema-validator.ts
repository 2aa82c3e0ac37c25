import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS; its default export is the plugin function under NodeNext typing.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void

/**
 * Validates values against the schemas of one OpenAPI description with ajv: draft 2020-12 for
 * 3.1, draft-07 for 2.0 and 3.0 after translating their dialect (`nullable`, boolean
 * `exclusiveMinimum`/`exclusiveMaximum`, `type: file`). `$ref`s resolve into the whole document,
 * registered under the id `doc`. Used by tests only.
 */
export class SchemaValidator {
  private readonly ajv: Ajv | Ajv2020
  private readonly is31: boolean

  constructor(doc: Record<string, unknown>) {
    this.is31 = String(doc['openapi'] ?? '').startsWith('3.1')
    const options = { strict: false, validateSchema: false, logger: false } as const
    this.ajv = this.is31 ? new Ajv2020(options) : new Ajv(options)
    addFormats(this.ajv)
    this.ajv.addSchema(this.translate(doc) as Record<string, unknown>, 'doc')
  }

  /** A validator for a schema written anywhere in the document (its `#/...` refs point into it). */
  compile(schema: unknown): ValidateFunction {
    return this.ajv.compile(this.translate(schema) as Record<string, unknown>)
  }

  private translate(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.translate(n))
    if (typeof node !== 'object' || node === null) return node
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(node)) out[k] = this.translate(v)
    if (typeof out['$ref'] === 'string' && out['$ref'].startsWith('#')) {
      out['$ref'] = `doc${out['$ref']}`
    }
    if (this.is31) return out
    if (out['nullable'] === true) {
      if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null']
      if (Array.isArray(out['enum']) && !out['enum'].includes(null)) {
        out['enum'] = [...out['enum'], null]
      }
    }
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (out[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound]
        delete out[bound]
      } else if (typeof out[flag] === 'boolean') {
        delete out[flag]
      }
    }
    if (out['type'] === 'file') delete out['type']
    return out
  }
}

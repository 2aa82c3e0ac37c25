import type { MockServiceDocument } from '../src/dsl/index.js'

/**
 * The contract every importer follows: bytes in, a normalized mock-service document and warnings
 * out. Importers are pure functions (no network; files only through `ImportContext.readFile`).
 */

/** Formats Understudy reads. `dsl` is its own transaction DSL (JSON or YAML). */
export const importFormats = [
  'dsl',
  'transactions',
  'har',
  'openapi',
  'rr',
  'wiremock',
  'postman',
  'mockoon',
] as const
export type ImportFormat = (typeof importFormats)[number]

/**
 * The dsl type key recorded for imported transactions (the mock services specification's "Supported dsl type keys").
 * GENERIC_DSL, HAR_DSL and RR_PAIR are the spec's; the spec leaves out the spellings of the
 * third-party ones, so Understudy uses neutral names.
 */
export type DslTypeKey =
  | 'GENERIC_DSL'
  | 'HAR_DSL'
  | 'RR_PAIR'
  | 'OPENAPI_DSL'
  | 'SWAGGER_DSL'
  | 'WIREMOCK_DSL'
  | 'POSTMAN_DSL'
  | 'MOCKOON_DSL'

/** Something an importer could not carry over, or chose to do differently: never silence. */
export interface ImportWarning {
  message: string
  /** File the warning is about (an entry of a zip, a mapping file). */
  file?: string
  /** JSON pointer, or a short locator such as `entries[3]`, inside that file. */
  at?: string
}

export interface ImportResult {
  format: ImportFormat
  dslType: DslTypeKey
  document: MockServiceDocument
  warnings: ImportWarning[]
}

export interface ImportInput {
  /** The file's bytes. */
  bytes: Uint8Array
  /** Its name (a path is fine); used in messages, and as a hint for detection. */
  fileName: string
}

export interface ImportContext {
  /**
   * Reads a file referenced by the input (WireMock `bodyFileName`, an OpenAPI external `$ref`),
   * relative to the input's directory or archive root; undefined when it does not exist.
   */
  readFile?: (relativePath: string) => Uint8Array | undefined
  /** Largest input accepted, in bytes (default 100 MiB). */
  maxBytes?: number
}

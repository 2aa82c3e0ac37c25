import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../../log/index.js'
import type { AssetBytes, Store, Workspace } from '../../store/index.js'
import type { Deployer } from '../../deploy/index.js'
// The spare thread's type comes from its own module: the upload area's entry point also holds
// routes, which depend on these types.
import type { SpareImportWorker } from '../v1/upload/off-thread.js'
import type { Authenticator } from '../auth.js'
import type { Principal } from '../principal.js'

export type { Principal } from '../principal.js'

/** Which specification document owns an endpoint: it decides the envelope (docs/api.md). */
export type ApiFamily = 'v1' | 'v4' | 'reports'

/** Everything handlers need, created once by the platform. */
export interface ApiDeps {
  store: Store
  files: AssetBytes
  deployer: Deployer
  log: Logger
  options: ApiOptions
  /** A loaded import thread for the next large upload or convert (the platform keeps one; tests may not). */
  importSpare?: SpareImportWorker
  /**
   * The platform's one checker of secrets, shared with the dashboard and the monitoring API so
   * that wrong secrets anywhere count against one throttle (a handler made without it has its own).
   */
  authenticator?: Authenticator
}

export interface ApiOptions {
  /** The platform's public base URL, for links such as download URLs (`http://127.0.0.1:8080`). */
  baseUrl: string
  /** Largest JSON body, in bytes. */
  jsonLimit: number
  /** Largest upload (multipart) body, in bytes. */
  uploadLimit: number
  /** Secret that signs download URLs. */
  signingKey: Buffer
}

/** A file of a multipart upload, buffered (uploads are bounded by `uploadLimit`). */
export interface UploadedFile {
  field: string
  filename: string
  contentType: string
  bytes: Buffer
  /**
   * True when `bytes`' ArrayBuffer belongs to this file alone (possibly longer than `bytes`), so
   * that it may be moved to a worker thread instead of copied.
   */
  exclusive: boolean
}

/** A parsed multipart/form-data body. */
export interface MultipartForm {
  fields: Record<string, string>
  files: UploadedFile[]
}

/** The per-request view handlers get. */
export interface ApiContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly family: ApiFamily
  readonly method: string
  readonly path: string
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: URLSearchParams
  readonly requestId: string
  readonly deps: ApiDeps
  /** The caller; routes with `auth: 'none'` see null. */
  readonly principal: Principal
  /** The body as JSON: 415 unless the content type is JSON, 400 when malformed, 413 when too large. */
  json: () => Promise<unknown>
  /** The body as multipart/form-data: 415 otherwise, 413 past the upload limit. */
  multipart: () => Promise<MultipartForm>
  /** Whether the body is multipart/form-data (for endpoints that take JSON or an upload). */
  isMultipart: () => boolean
  /** The workspace of a path parameter: 400 if not an integer, 404 if unknown or not visible to the caller. */
  workspace: (param?: string) => Promise<Workspace>
  /** An integer path parameter: 400 naming it otherwise. */
  intParam: (name: string) => number
}

/** What a handler returns; the server wraps `result` in the family's envelope. */
export type HandlerResult =
  | {
      status?: number
      result: unknown
      paging?: { limit: number; skip: number; total: number }
      extra?: Record<string, unknown>
    }
  /**
   * `result` already written as JSON text, in pieces, put in the envelope as is: a large answer
   * (thousands of imported transactions) is prepared in slices between other requests instead
   * of by one JSON.stringify that holds the event loop.
   */
  | { status?: number; resultJson: readonly Buffer[]; extra?: Record<string, unknown> }
  /** A body written as is (204, downloads, the asset create response shown without envelope). */
  | { status: number; raw: Buffer | string | null; headers?: Record<string, string> }

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** find-my-way path, such as `/api/v1/workspaces/:workspaceId/services/:serviceId`. */
  path: string
  family: ApiFamily
  /** `basic` (default): an API key is required. `none`: signed links and health. */
  auth?: 'basic' | 'none'
  handler: (ctx: ApiContext) => Promise<HandlerResult>
}

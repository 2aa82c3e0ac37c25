import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../../log/index.js'
import type { Account, Store, User, WorkspaceRole } from '../../store/index.js'
import type { Authenticator } from '../auth.js'
import type { RunQueue } from './run-queue.js'

/** The scopes of the monitoring specification, docs/monitor-api.md#authentication-and-oauth-20. */
export const SCOPES = [
  'api:read',
  'bucket:auth_token',
  'bucket:write',
  'message:write',
  'account:email',
  'team:read',
  'test:read',
  'test:write',
] as const
export type Scope = (typeof SCOPES)[number]

/** The caller of a monitoring request: a Bearer token's user, or a platform API key's. */
export interface MonitorPrincipal {
  user: User
  account: Account
  /** The token's scopes; a platform API key (HTTP Basic, only on POST /apps) has all. */
  scopes: ReadonlySet<string>
  /** The token's id (null for an API key). */
  tokenId: string | null
  /** The workspaces (teams) the user sees, with its role there (src/api/monitor/authorize.ts). */
  workspaceRoles: ReadonlyMap<number, WorkspaceRole>
}

export interface MonitorOptions {
  /** The platform's public base URL (`http://127.0.0.1:8080`), for trigger and result links. */
  baseUrl: string
  jsonLimit: number
  /** Runs kept per test; older ones are deleted as new ones finish. */
  resultRetention: number
  /** The clock (epoch ms), injectable so that tests can move past the 60 s code lifetime. */
  now: () => number
}

/** What monitoring handlers need, created once by the platform. */
export interface MonitorDeps {
  store: Store
  log: Logger
  options: MonitorOptions
  runs: RunQueue
  /** The platform's one checker of secrets (API keys on the consent form, client secrets): one throttle. */
  authenticator: Authenticator
}

export interface MonitorContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: URLSearchParams
  readonly deps: MonitorDeps
  /** The caller; routes with `auth: 'none'` see null. */
  readonly principal: MonitorPrincipal
  json: () => Promise<unknown>
  /** An application/x-www-form-urlencoded body (a JSON object is accepted too). */
  form: () => Promise<URLSearchParams>
}

export type MonitorResult =
  | {
      status?: number
      data: unknown
      meta?: Record<string, unknown>
      /** Members written beside the envelope's, for a client that reads the product's unwrapped answer (test metrics). */
      top?: Record<string, unknown>
    }
  | { status: number; raw: string | null; headers?: Record<string, string> }

export interface MonitorRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  /**
   * `bearer` (default): an OAuth token holding `scope`. `basic`: a platform API key (creating an
   * application, the one way to a first token). `none`: trigger URLs and the OAuth endpoints.
   */
  auth?: 'bearer' | 'basic' | 'none'
  /** The scope the token must carry (any one of them when a list). */
  scope?: Scope | readonly Scope[]
  handler: (ctx: MonitorContext) => Promise<MonitorResult>
}

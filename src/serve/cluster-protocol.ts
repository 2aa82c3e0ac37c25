import type { MockServiceDocument } from '../dsl/index.js'
import { codes, createError, UnderstudyError, type ErrorCode, type ErrorDetail } from '../errors/index.js'
import type { RingIds } from '../inspect/index.js'
import type { TlsMaterial } from './tls.js'

/*
 * The IPC messages between a cluster primary (`understudy run --replicas N`, N > 1) and its
 * replicas. A replica says `hello` once it listens for messages; the primary answers `start` with
 * what it serves; admin work goes as `call`s answered by `reply`s carrying the same `callId`.
 */

/** Ports a replica listens on; 0 shares whatever port the first replica was given. */
export interface ListenPorts {
  port: number
  tlsPort: number | null
  h2cPort: number | null
}

/** An error as it crosses the IPC channel. */
export interface WireError {
  code: string
  message: string
  details?: readonly ErrorDetail[]
}

/** Admin work a replica does for the primary; each maps to an AdminTarget member. */
export type ReplicaCall =
  | { op: 'health' }
  | { op: 'reconfigure'; document: MockServiceDocument }
  | { op: 'inspection'; skip: number; limit: number }
  | { op: 'detail'; id: number }
  | { op: 'log'; limit: number }

export interface StartMessage {
  kind: 'start'
  /** 1..replicas: which replica this is (its log lines and inspection ids say so). */
  replica: number
  replicas: number
  ids: RingIds
  document: MockServiceDocument
  tls: TlsMaterial | null
  ports: ListenPorts
}

export type PrimaryMessage =
  | StartMessage
  | { kind: 'call'; callId: number; call: ReplicaCall }
  | { kind: 'stop' }

export type ReplicaMessage =
  | { kind: 'hello' }
  | { kind: 'listening'; urls: { http: string; https: string | null; h2c: string | null } }
  | { kind: 'failed'; error: WireError }
  | { kind: 'reply'; callId: number; value: unknown }
  | { kind: 'reply'; callId: number; error: WireError }

/**
 * Whether an IPC message is one of ours (Node's own cluster messages never reach 'message').
 *
 * @example
 * process.on('message', (m) => { if (isMessage<PrimaryMessage>(m)) handle(m) })
 */
export function isMessage<T extends { kind: string }> (value: unknown): value is T {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string'
}

/**
 * An error ready to cross the IPC channel; anything but an UnderstudyError becomes ERR_INTERNAL.
 *
 * @example
 * toWireError(createError('ERR_DSL_INVALID', ['1 error'])).code // 'ERR_DSL_INVALID'
 */
export function toWireError (err: unknown): WireError {
  if (err instanceof UnderstudyError) {
    return err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details }
  }
  return { code: 'ERR_INTERNAL', message: codes.ERR_INTERNAL.message }
}

/**
 * The UnderstudyError a wire error stands for (an unknown code becomes ERR_INTERNAL).
 *
 * @example
 * fromWireError({ code: 'ERR_SERVE_LISTEN', message: 'Cannot listen on ...' }).statusCode // 500
 */
export function fromWireError (wire: WireError): UnderstudyError {
  if (!Object.hasOwn(codes, wire.code)) return createError('ERR_INTERNAL')
  return new UnderstudyError(wire.code as ErrorCode, wire.message, wire.details)
}

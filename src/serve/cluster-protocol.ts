import type { MockServiceDocument } from '../dsl/index.js'
import type { WireError } from '../errors/index.js'
import type { InspectionFilter, RingIds, Verification } from '../inspect/index.js'
import type { CapturedRequest } from './record/capture.js'
import type { ScenarioRead, ScenarioWrite } from './scenario/store.js'
import type { TlsMaterial } from './tls.js'

/*
 * The IPC messages between a cluster primary (`understudy run --replicas N`, N > 1) and its
 * replicas. A replica says `hello` once it listens for messages; the primary answers `start` with
 * what it serves; admin work goes as `call`s answered by `reply`s carrying the same `callId`.
 * The other way, a replica asks the primary to commit a scenario transition (`scenario`,
 * answered by `scenario-result` with the same `requestId`): the primary keeps the states. And a
 * replica in `record` mode sends what it captured, coalesced, every 200 ms (`recorded`, no
 * answer): the primary keeps the merged recording. Messages of one channel arrive in order, so a
 * `reply` to `flushRecording` comes after the `recorded` messages sent before it.
 */

/** Ports a replica listens on; 0 shares whatever port the first replica was given. */
export interface ListenPorts {
  port: number
  tlsPort: number | null
  h2cPort: number | null
}

/** Admin work a replica does for the primary; each maps to an AdminTarget member. */
export type ReplicaCall =
  | { op: 'health' }
  | { op: 'reconfigure'; document: MockServiceDocument }
  | { op: 'inspection'; skip: number; limit: number }
  | { op: 'detail'; id: number }
  | { op: 'log'; limit: number }
  // the verification queries, each over the replica's own journal (the primary merges them)
  | { op: 'list'; filter: InspectionFilter; limit: number }
  | { op: 'count'; filter: InspectionFilter }
  | { op: 'unmatched'; filter: InspectionFilter; limit: number }
  | { op: 'verify'; verification: Verification }
  | { op: 'clear' }
  | { op: 'postServe' }
  // the recording: send what is queued now (before the reply), or forget it
  | { op: 'flushRecording' }
  | { op: 'dropRecording' }

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
  | { kind: 'scenario-result'; requestId: number; ok: boolean; states: ScenarioRead[] }

export type ReplicaMessage =
  | { kind: 'hello' }
  | { kind: 'listening'; urls: { http: string; https: string | null; h2c: string | null } }
  | { kind: 'failed'; error: WireError }
  | { kind: 'reply'; callId: number; value: unknown }
  | { kind: 'reply'; callId: number; error: WireError }
  | { kind: 'scenario'; requestId: number; reads: ScenarioRead[]; writes: ScenarioWrite[] }
  | { kind: 'recorded'; requests: CapturedRequest[] }

/**
 * Whether an IPC message is one of ours (Node's own cluster messages never reach 'message').
 *
 * @example
 * process.on('message', (m) => { if (isMessage<PrimaryMessage>(m)) handle(m) })
 */
export function isMessage<T extends { kind: string }>(value: unknown): value is T {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string'
  )
}

// Errors cross the IPC channel through the one decoder of src/errors (remote.ts).
export { toWireError, fromWireError } from '../errors/index.js'

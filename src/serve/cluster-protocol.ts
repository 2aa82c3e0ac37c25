import type { MockServiceDocument } from '../dsl/index.js'
import type { WireError } from '../errors/index.js'
import type { InspectionFilter, InspectionRecord, RingIds, Verification } from '../inspect/index.js'
import type { CapturedRequest } from './record/capture.js'
import type { ScenarioRead, ScenarioWrite } from './scenario/store.js'
import type { TlsMaterial } from './tls.js'
import type { WireMockAnswer, WireMockCall } from './wiremock/index.js'

/*
 * The IPC messages between a cluster primary (`understudy run --replicas N`, N > 1) and its
 * replicas. A replica says `hello` once it listens for messages; the primary answers `start` with
 * what it serves; admin work goes as `call`s answered by `reply`s carrying the same `callId`.
 * The other way, a replica asks the primary to commit a scenario transition (`scenario`,
 * answered by `scenario-result` with the same `requestId`): the primary keeps the states. And a
 * replica in `record` mode sends what it captured, coalesced, every 200 ms (`recorded`, no
 * answer): the primary keeps the merged recording. Messages of one channel arrive in order, so a
 * `reply` to `flushRecording` comes after the `recorded` messages sent before it. A call of
 * WireMock's admin API (`/__admin` on the shared mock port) goes to the primary as `wiremock`,
 * answered by `wiremock-result` with the same `requestId`: the primary owns the stubs.
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
  // WireMock's request journal: every record of the replica's inspection ring (WireRecord[])
  | { op: 'journal' }

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
  | { kind: 'wiremock-result'; requestId: number; answer: WireMockAnswer }

export type ReplicaMessage =
  | { kind: 'hello' }
  | { kind: 'listening'; urls: { http: string; https: string | null; h2c: string | null } }
  | { kind: 'failed'; error: WireError }
  | { kind: 'reply'; callId: number; value: unknown }
  | { kind: 'reply'; callId: number; error: WireError }
  | { kind: 'scenario'; requestId: number; reads: ScenarioRead[]; writes: ScenarioWrite[] }
  | { kind: 'recorded'; requests: CapturedRequest[] }
  | { kind: 'wiremock'; requestId: number; call: WireMockCall }

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

/** An inspection record as IPC carries it (JSON): its bodies in base64. */
export interface WireRecord extends Omit<InspectionRecord, 'requestBody' | 'responseBody'> {
  requestBody: string | null
  responseBody: string | null
}

export function recordToWire(record: InspectionRecord): WireRecord {
  return {
    ...record,
    requestBody: record.requestBody?.toString('base64') ?? null,
    responseBody: record.responseBody?.toString('base64') ?? null,
  }
}

export function recordFromWire(record: WireRecord): InspectionRecord {
  return {
    ...record,
    requestBody: record.requestBody === null ? null : Buffer.from(record.requestBody, 'base64'),
    responseBody: record.responseBody === null ? null : Buffer.from(record.responseBody, 'base64'),
  }
}

// Errors cross the IPC channel through the one decoder of src/errors (remote.ts).
export { toWireError, fromWireError } from '../errors/index.js'

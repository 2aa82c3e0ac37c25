import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FaultSpec, FaultType } from '../dsl/index.js'

/** A fault, compiled: whether this request gets it, and how to inflict it. */
export interface CompiledFault {
  readonly type: FaultType
  /** Draws whether this request gets the fault (always true without `probability`). */
  applies: () => boolean
}

/** Compiles `fault` (or the mock service's `faults`); null when there is none or it never applies. */
export function compileFault(spec: FaultSpec | undefined): CompiledFault | null {
  if (spec === undefined) return null
  const p = spec.probability ?? 1
  if (p <= 0) return null
  return { type: spec.type, applies: p >= 1 ? () => true : () => Math.random() < p }
}

/** The response side a fault needs: HTTP/1.1's socket, or HTTP/2's stream. */
interface FaultTarget {
  readonly socket?: Socket | null
  readonly stream?: { close: (code?: number) => void } | undefined
  destroy: (error?: Error) => unknown
}

const NGHTTP2_INTERNAL_ERROR = 2

/**
 * Inflicts a fault on the connection of a response that has not started. HTTP/1.1: a TCP reset,
 * a close without a byte, a chunked body cut inside a chunk, or random bytes then a close.
 * HTTP/2 has no socket of its own per request: every fault resets the stream.
 */
export function injectFault(type: FaultType, res: FaultTarget, h2: boolean): void {
  if (h2 || res.socket === null || res.socket === undefined) {
    if (res.stream !== undefined) res.stream.close(NGHTTP2_INTERNAL_ERROR)
    else res.destroy()
    return
  }
  const socket = res.socket
  switch (type) {
    case 'connection_reset':
      socket.resetAndDestroy()
      return
    case 'empty_response':
      socket.destroy()
      return
    case 'malformed_chunk':
      // A chunk that announces 0x400 bytes and carries 12, then the connection ends.
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n400\r\nlorem ipsum ',
      )
      return
    case 'random_data_then_close':
      socket.end(randomBytes(256))
  }
}

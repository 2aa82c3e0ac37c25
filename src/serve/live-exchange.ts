/** One request answered by the live system, as a recorder sees it. */
export interface LiveExchange {
  method: string
  url: string
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>
  requestBody: Buffer | null
  status: number
  /** Flat `[name, value, ...]`. */
  responseHeaders: readonly string[]
  responseBody: Buffer | null
  /** True when the body was longer than what was captured. */
  truncated: boolean
  durationMs: number
  /** When the answer ended (epoch ms): a recording keeps the newest answer to a request. */
  endedAt?: number
}

export type LiveListener = (exchange: LiveExchange) => void

/** Where the runtime's request path hands a live exchange to record (`RuntimeState.recording`). */
export interface LiveRecorder {
  add: (exchange: LiveExchange, origin: string) => void
}

import type { Logger } from '../../log/index.js'
import type { Execute } from './run-queue.js'

export interface ExecutorOptions {
  log: Logger
  smtpUrl?: string
}

/** Runs a test with the runner of src/monitor (placeholder until the runner lands). */
export function createMonitorExecutor (_options: ExecutorOptions): Execute {
  return async () => ({ pass: false, doc: { error: 'the runner is not available' } })
}

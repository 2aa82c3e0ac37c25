import { createError } from '../errors/index.js'
import type { Logger } from '../log/index.js'

/**
 * Claims and runs the monitoring runs queued for a region (`understudy agent --monitor --region R`).
 * Not part of this build: it refuses clearly rather than run nothing.
 */
export async function startRegionWorker(options: {
  platform: string
  harborId: string
  shipId: string
  token: string
  region: string
  dataDir: string
  log: Logger
}): Promise<{ stop(): Promise<void> }> {
  throw createError('ERR_CONFIG_INVALID', [
    `monitoring in regions is not available in this build (--monitor --region ${options.region})`,
  ])
}

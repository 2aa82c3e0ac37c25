import { waitFor } from './wait.js'

/**
 * Polls a deploy, configure or stop tracking until it ends, and returns its last status
 * (`FINISHED` or `FAILED`); fails when it has not ended within `timeoutMs`. `readStatus` reads the
 * tracking once (through whichever API the test drives).
 *
 * @example
 * const status = await untilTrackingEnds(async () => (await getTracking(id)).status)
 */
export async function untilTrackingEnds(
  readStatus: () => Promise<string>,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<string> {
  let status = ''
  await waitFor(
    async () => {
      status = await readStatus()
      return status === 'FINISHED' || status === 'FAILED'
    },
    'the tracking to end',
    { timeoutMs, intervalMs: 100 },
  )
  return status
}

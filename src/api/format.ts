/*
 * Time formats of the specification's resources. The store keeps epoch milliseconds; the mock
 * services specification shows `created`/`updated` as epoch seconds on services, mock services and
 * trackings, ISO 8601 on assets (and on the tag update response), and `createdDate`/`updatedDate`
 * as formatted strings.
 */

/** Epoch seconds, as integers. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000)
}

/** ISO 8601 with milliseconds and Z. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString()
}

/** `2024-05-01 13:45:09` (UTC): the shape of the mock services specification's `createdDate`/`updatedDate`. */
export function formattedDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '')
}

/** Epoch seconds, or null. */
export function epochSecondsOrNull(ms: number | null): number | null {
  return ms === null ? null : epochSeconds(ms)
}

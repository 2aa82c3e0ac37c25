/** The `Date` of answers made in the current second; null once the second is over. */
let current: string | null = null

function expire(): void {
  current = null
}

/**
 * The current time as an HTTP date (`Fri, 27 Nov 2026 04:20:00 GMT`), made once per second in
 * which it is asked for, as Node does for its own `Date` headers: a busy server formats the date
 * once a second, an idle one keeps no timer.
 *
 * @example
 * httpDate() // 'Fri, 27 Nov 2026 04:20:00 GMT'
 */
export function httpDate(): string {
  if (current === null) {
    const now = new Date()
    current = now.toUTCString()
    setTimeout(expire, 1000 - now.getMilliseconds()).unref()
  }
  return current
}

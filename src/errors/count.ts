/**
 * `n` with its thousands grouped by commas, as `toLocaleString('en-US')` writes an integer
 * (`10000` → `10,000`), for the limits that error messages name. Written by hand because the first
 * `toLocaleString` call of a process reads ICU's locale and number data: about 6 MiB of the node
 * binary's pages that a runtime would otherwise keep resident for one message.
 *
 * @example
 * formatCount(1_048_576) // '1,048,576'
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n)
  const digits = String(Math.abs(n))
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1)
  for (let i = grouped.length; i < digits.length; i += 3) grouped += ',' + digits.slice(i, i + 3)
  return n < 0 ? '-' + grouped : grouped
}

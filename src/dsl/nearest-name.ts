/**
 * The known name nearest to a mistyped one, for "did you mean" hints (DSL properties and matcher
 * names, command-line flags): the one at the smallest edit distance, case-insensitive, when it is
 * close enough to be what was meant; otherwise null. A name that starts another wins (`--admin`
 * means `--admin-port` more likely than `--host`).
 *
 * @example
 * nearestName('equalz_url', ['equals', 'equals_url']) // 'equals_url'
 * nearestName('zzz', ['equals']) // null
 */
export function nearestName(name: string, known: readonly string[]): string | null {
  const wanted = name.toLowerCase()
  const prefixed = known.filter((k) => wanted.length >= 3 && k.toLowerCase().startsWith(wanted))
  if (prefixed.length > 0) return prefixed[0] as string
  const best = closestName(name, known)
  if (best === null) return null
  const distance = editDistance(wanted, best.toLowerCase())
  return distance <= Math.max(2, Math.floor(best.length / 3)) ||
    wanted.startsWith(best.toLowerCase())
    ? best
    : null
}

/** The known name at the smallest edit distance, however far (null when there is none). */
export function closestName(name: string, known: readonly string[]): string | null {
  const wanted = name.toLowerCase()
  let best: string | null = null
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = editDistance(wanted, candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] ?? 0
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = current
    }
  }
  return row[b.length] ?? 0
}

// Compares two bench/perf-sample.sh runs: samples per 1,000 requests in all, by DSO, and the
// symbols whose share moved most from A to B.
//
//   npx tsx bench/perf-compare.ts OUT_A OUT_B [ROWS]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** "samples-per-1000-requests name" lines of a perf-sample.sh table, summed by name. */
export function readTable(text: string): Map<string, number> {
  const table = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = /^(\d+(?:\.\d+)?) (.+)$/.exec(line.trim())
    if (match === null) continue
    const name = match[2] as string
    table.set(name, (table.get(name) ?? 0) + Number(match[1]))
  }
  return table
}

/** Names by how much more B spends on them than A (most first). */
export function differences(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
): Array<{ name: string; a: number; b: number; change: number }> {
  const names = new Set([...a.keys(), ...b.keys()])
  return [...names]
    .map((name) => {
      const before = a.get(name) ?? 0
      const after = b.get(name) ?? 0
      return { name, a: before, b: after, change: after - before }
    })
    .sort((x, y) => y.change - x.change)
}

function sum(table: ReadonlyMap<string, number>): number {
  let total = 0
  for (const value of table.values()) total += value
  return total
}

/** Stops with a one-line message (no stack trace), as for any bad command line. */
function refuse(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

function readRun(dir: string, file: string): Map<string, number> {
  try {
    return readTable(readFileSync(join(dir, file), 'utf8'))
  } catch (err) {
    return refuse(
      `cannot read ${join(dir, file)} (${(err as Error).message}): is it a perf-sample.sh OUT?`,
    )
  }
}

function main(argv: readonly string[]): void {
  const [dirA, dirB, rowsText = '25'] = argv
  if (dirA === undefined || dirB === undefined) {
    refuse('usage: npx tsx bench/perf-compare.ts OUT_A OUT_B [ROWS]')
  }
  const rows = Number(rowsText)
  if (!Number.isInteger(rows) || rows < 1) {
    refuse(`ROWS must be a positive whole number, not '${rowsText}'`)
  }
  const fixed = (n: number): string => n.toFixed(3)
  const print = (row: { name: string; a: number; b: number; change: number }): void => {
    const sign = row.change >= 0 ? '+' : ''
    process.stdout.write(
      `  ${sign}${fixed(row.change)} ${fixed(row.a)} ${fixed(row.b)} ${row.name}\n`,
    )
  }
  const [dsoA, dsoB] = [readRun(dirA, 'dso.txt'), readRun(dirB, 'dso.txt')]
  const totalA = sum(dsoA)
  const totalB = sum(dsoB)
  process.stdout.write(
    `samples per 1,000 requests: A ${fixed(totalA)}, B ${fixed(totalB)}, B/A ${(totalB / totalA).toFixed(3)}\n\nby DSO (change, A, B):\n`,
  )
  differences(dsoA, dsoB).forEach(print)
  const symbols = differences(readRun(dirA, 'symbols.txt'), readRun(dirB, 'symbols.txt'))
  process.stdout.write(`\nsymbols B spends most more on (change, A, B):\n`)
  symbols.slice(0, rows).forEach(print)
  process.stdout.write(`\nsymbols B spends most less on:\n`)
  symbols.slice(-Math.min(rows, 10)).reverse().forEach(print)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2))

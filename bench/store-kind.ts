/** Which store a bench measures: `--store postgres` (or `--store=postgres`); SQLite by default. */
export type StoreKind = 'sqlite' | 'postgres'

/** Ends a bench run over a malformed flag: one line naming it, exit code 2. */
export function refuseFlag(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

/**
 * The store named on the command line; any other value ends the run (refuseFlag), so that a
 * typo does not measure SQLite under another name.
 *
 * @example
 * storeOfArgv() // 'postgres' for `npx tsx bench/other-lists.ts --store postgres`
 */
export function storeOfArgv(argv: readonly string[] = process.argv): StoreKind {
  const at = argv.indexOf('--store')
  const given =
    at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--store='))?.slice('--store='.length)
  if (given === undefined || given === 'sqlite') return 'sqlite'
  if (given === 'postgres') return 'postgres'
  return refuseFlag(`--store ${given}: expected sqlite or postgres`)
}

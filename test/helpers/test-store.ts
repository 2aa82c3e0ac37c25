import { freshPgDatabase } from './postgres.js'

/**
 * The store of the platforms tests start: SQLite in their data dir, or, with
 * UNDERSTUDY_TEST_STORE=postgres (`npm run test:pg`), a fresh PostgreSQL database each. A run that
 * asks for PostgreSQL where there is none fails rather than passing on SQLite.
 */
export async function testStore(): Promise<string | undefined> {
  const wanted = process.env['UNDERSTUDY_TEST_STORE'] ?? 'sqlite'
  if (wanted === 'sqlite' || wanted === '') return undefined
  if (wanted !== 'postgres') {
    throw new Error(`UNDERSTUDY_TEST_STORE must be sqlite or postgres, not "${wanted}"`)
  }
  const url = await freshPgDatabase()
  if (url === undefined) {
    throw new Error('UNDERSTUDY_TEST_STORE=postgres, but PostgreSQL is not available')
  }
  return url
}

/**
 * The store of each data dir's platform, so that a platform restarted on the same data dir finds
 * its records again on PostgreSQL as it does in the data dir's SQLite file.
 */
const storeOfDataDir = new Map<string, Promise<string | undefined>>()

/**
 * The test store (see testStore) of the platform started on `dataDir`: the same one each time.
 *
 * @example
 * const store = await testStoreOf(dataDir)
 */
export async function testStoreOf(dataDir: string): Promise<string | undefined> {
  let store = storeOfDataDir.get(dataDir)
  if (store === undefined) {
    store = testStore()
    storeOfDataDir.set(dataDir, store)
  }
  return await store
}

/**
 * `understudy platform` (and `admin create-account`) arguments on the test store: a platform the
 * test starts through the command line without choosing a store (no `--store`, no
 * UNDERSTUDY_STORE of its own) gets `--store <url>` with UNDERSTUDY_TEST_STORE=postgres, so the
 * command's suites run on both stores; `admin create-account` gets the store of its data dir's
 * platform.
 * Other commands, and installed copies of the package (`bin`: those tests are about the package),
 * are left alone.
 *
 * @example
 * const child = spawn(process.execPath, [cliPath, ...(await onTestStore(args, options))])
 */
export async function onTestStore(
  args: string[],
  options: { env?: Record<string, string>; bin?: string } = {},
): Promise<string[]> {
  const onStore = args[0] === 'platform' || (args[0] === 'admin' && args[1] === 'create-account')
  if (!onStore || options.bin !== undefined) return args
  if ((options.env?.['UNDERSTUDY_STORE'] ?? '') !== '') return args
  if (args.some((arg) => arg === '--store' || arg.startsWith('--store='))) return args
  const at = args.indexOf('--data-dir')
  const dataDir = at === -1 ? '' : (args[at + 1] ?? '')
  const store = await testStoreOf(dataDir)
  if (store === undefined) return args
  // `admin create-account` reads the data dir's SQLite file only when no store is named.
  const withoutDataDir =
    args[0] === 'admin' && at !== -1 ? [...args.slice(0, at), ...args.slice(at + 2)] : args
  return [...withoutDataDir, '--store', store]
}

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  canStartPostgres,
  createPgDatabase,
  PG_SKIP_REASON,
  startPostgresServer,
} from '../../scripts/postgres-server.js'
import { waitFor } from './wait.js'

/*
 * One PostgreSQL server per vitest run (scripts/postgres-server.ts starts it), started by the
 * first test that asks for a database and shared by every worker: workers are processes of the
 * one vitest process (pool: 'forks'), so the server's directory is named after it
 * (process.ppid). The first worker to create that directory starts the server; the others wait
 * for the port it writes there. The server lives as long as the vitest process.
 */

export { PG_SKIP_REASON }

/** The vitest process: the server lives as long as it does. */
const owner = process.ppid
const runDir = join(tmpdir(), `understudy-pg-${owner}`)
/** Written last by the worker that started the server: `port` or `error <reason>`. */
const readyFile = join(runDir, 'ready')

function writeReady(text: string): void {
  const partial = `${readyFile}.${process.pid}`
  writeFileSync(partial, text)
  renameSync(partial, readyFile)
}

/** The server's port, starting it in this worker or waiting for the worker that does. */
async function serverPort(): Promise<number> {
  if (!canStartPostgres()) throw new Error(PG_SKIP_REASON)
  let starter = true
  try {
    mkdirSync(runDir)
  } catch {
    starter = false
  }
  if (starter) {
    try {
      writeReady(String((await startPostgresServer({ runDir, owner })).port))
    } catch (err) {
      writeReady(`error ${err instanceof Error ? err.message : String(err)}`)
    }
  } else {
    await waitFor(() => existsSync(readyFile), 'the PostgreSQL server of this test run', {
      timeoutMs: 60_000,
      intervalMs: 50,
    })
  }
  const ready = readFileSync(readyFile, 'utf8')
  if (ready.startsWith('error ')) throw new Error(ready.slice('error '.length))
  return Number(ready)
}

/** Whether this machine can run the PostgreSQL tests (for `describe.skipIf(!hasPostgres)`). */
export const hasPostgres = canStartPostgres()

let port: Promise<number | undefined> | undefined

/**
 * A new, empty database on the test run's PostgreSQL server (started on first use): its
 * `postgres://` URL. Undefined, with the reason printed once, when the PostgreSQL binaries are
 * absent or the server cannot start, so that callers skip.
 *
 * @example
 * const url = await freshPgDatabase()
 * if (url === undefined) return
 */
export async function freshPgDatabase(): Promise<string | undefined> {
  port ??= serverPort().catch((err: unknown) => {
    console.warn(`PostgreSQL tests skipped: ${err instanceof Error ? err.message : String(err)}`)
    return undefined
  })
  const at = await port
  if (at === undefined) return undefined
  return await createPgDatabase(at)
}

/**
 * A new database on the test run's server holding a copy of the database of `url` (made by
 * freshPgDatabase, and closed by everyone: PostgreSQL copies only a database nobody uses).
 *
 * @example
 * const url = await copyPgDatabase(migratedTemplateUrl)
 */
export async function copyPgDatabase(url: string): Promise<string> {
  const at = await port
  if (at === undefined) throw new Error(`PostgreSQL was asked for: ${PG_SKIP_REASON}`)
  return await createPgDatabase(at, new URL(url).pathname.slice(1))
}

/**
 * A fresh database's URL, or a thrown error saying why there is none: for tests that were asked
 * to run on PostgreSQL (UNDERSTUDY_TEST_STORE=postgres) and must not pass on SQLite instead.
 *
 * @example
 * const store = await openPostgresStore({ url: await requirePgDatabase() })
 */
export async function requirePgDatabase(): Promise<string> {
  const url = await freshPgDatabase()
  if (url === undefined) throw new Error(`PostgreSQL was asked for: ${PG_SKIP_REASON}`)
  return url
}

import { execFile, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from './wait.js'

/*
 * One PostgreSQL server per vitest run, started by the first test that asks for a database and
 * shared by every worker: workers are processes of the one vitest process (pool: 'forks'), so the
 * server's directory is named after it (process.ppid). The first worker to create that directory
 * starts the server; the others wait for the port it writes there. pg_ctl runs the server apart
 * from the worker (a worker ends when its files are done), and a small watchdog stops it and
 * removes the directory once the vitest process has exited, however it exited.
 *
 * The server is for throwaway data: fsync off, loopback only, trust authentication, its unix
 * socket in its own directory. initdb refuses to run as root, so as root every PostgreSQL binary
 * runs as the `postgres` user, on directories it owns.
 */

const execFileAsync = promisify(execFile)

/** The directory of initdb/pg_ctl: UNDERSTUDY_PG_BIN, else the one on PATH, else Debian's newest. */
function findBinDir(): string | undefined {
  const fromEnv = process.env['UNDERSTUDY_PG_BIN']
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' })
  const onPath = which.stdout.trim()
  if (which.status === 0 && onPath !== '' && existsSync(join(dirname(onPath), 'pg_ctl'))) {
    return dirname(onPath)
  }
  const debian = '/usr/lib/postgresql'
  if (!existsSync(debian)) return undefined
  const versions = readdirSync(debian)
    .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(debian, versions[0], 'bin')
}

const isRoot = process.getuid?.() === 0

/** The uid/gid of the `postgres` user, for directories its server writes. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
  if (uid.status !== 0 || gid.status !== 0) return undefined
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
async function runPg(bin: string, args: readonly string[]): Promise<void> {
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  await execFileAsync(file, argv, { encoding: 'utf8' })
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The vitest process: the server lives as long as it does. */
const owner = process.ppid
const runDir = join(tmpdir(), `understudy-pg-${owner}`)
/** Written last by the worker that started the server: `port` or `error <reason>`. */
const readyFile = join(runDir, 'ready')

async function startServer(binDir: string): Promise<number> {
  const user = isRoot ? postgresUser() : undefined
  if (isRoot && user === undefined) throw new Error('running as root and there is no postgres user')
  if (user !== undefined) chownSync(runDir, user.uid, user.gid)
  const dataDir = join(runDir, 'data')
  await runPg(join(binDir, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '--locale=C',
    '--encoding=UTF8',
  ])
  const port = await freePort()
  const options = [
    `-p ${port}`,
    `-k ${runDir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ')
  await runPg(join(binDir, 'pg_ctl'), [
    'start',
    '-w',
    '-D',
    dataDir,
    '-l',
    join(runDir, 'server.log'),
    '-o',
    options,
  ])
  // Stops the server and removes its files when vitest has gone, even after a SIGKILL.
  const stop = `${isRoot ? 'runuser -u postgres -- ' : ''}'${join(binDir, 'pg_ctl')}' stop -D '${dataDir}' -m immediate`
  spawn(
    'sh',
    ['-c', `while kill -0 ${owner} 2>/dev/null; do sleep 1; done; ${stop}; rm -rf '${runDir}'`],
    { detached: true, stdio: 'ignore' },
  ).unref()
  return port
}

function writeReady(text: string): void {
  const partial = `${readyFile}.${process.pid}`
  writeFileSync(partial, text)
  renameSync(partial, readyFile)
}

/** The server's port, starting it in this worker or waiting for the worker that does. */
async function serverPort(): Promise<number> {
  const binDir = findBinDir()
  if (binDir === undefined) throw new Error(PG_SKIP_REASON)
  let starter = true
  try {
    mkdirSync(runDir)
  } catch {
    starter = false
  }
  if (starter) {
    try {
      writeReady(String(await startServer(binDir)))
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

export const PG_SKIP_REASON =
  "PostgreSQL's initdb/pg_ctl not found: install Debian's postgresql (apt-get install -y postgresql), or set UNDERSTUDY_PG_BIN, to run the PostgreSQL store tests"

/** Whether this machine can run the PostgreSQL tests (for `describe.skipIf(!hasPostgres)`). */
export const hasPostgres = findBinDir() !== undefined && (!isRoot || postgresUser() !== undefined)

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
  const name = `understudy_${randomBytes(6).toString('hex')}`
  // loaded here, not at the top: every platform test imports this helper, few need node-postgres
  const { default: pg } = await import('pg')
  const admin = new pg.Client({
    host: '127.0.0.1',
    port: at,
    user: 'postgres',
    database: 'postgres',
  })
  await admin.connect()
  try {
    // CREATE DATABASE copies template1 and fails while another session uses it: retry a moment later.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name}`)
        break
      } catch (err) {
        const code = (err as { code?: string }).code
        if (code !== '55006' || attempt >= 20) throw err
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  } finally {
    await admin.end()
  }
  return `postgres://postgres@127.0.0.1:${at}/${name}`
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

import { execFile, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, readdirSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

/*
 * A throwaway PostgreSQL server for tests and benchmarks, started from the machine's binaries:
 * fsync off, loopback only, trust authentication, its unix socket in its own directory. initdb
 * refuses to run as root, so as root every PostgreSQL binary runs as the `postgres` user, on
 * directories it owns. A small watchdog stops the server and removes its directory once the
 * process that owns it has exited, however it exited.
 */

const execFileAsync = promisify(execFile)

/** The directory of initdb/pg_ctl: UNDERSTUDY_PG_BIN, else the one on PATH, else Debian's newest. */
export function findPgBinDir(): string | undefined {
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

export const PG_SKIP_REASON =
  "PostgreSQL's initdb/pg_ctl not found: install Debian's postgresql (apt-get install -y postgresql), or set UNDERSTUDY_PG_BIN, to run the PostgreSQL store tests"

/** Whether this machine can start a throwaway server: the binaries, and a `postgres` user when root. */
export function canStartPostgres(): boolean {
  return findPgBinDir() !== undefined && (!isRoot || postgresUser() !== undefined)
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

/**
 * Starts a server whose files live in `runDir` (an empty directory this process made), on a free
 * loopback port, and returns that port. It stops, and `runDir` goes, once process `owner` has
 * exited; `stop` ends it sooner.
 *
 * @example
 * const { port, stop } = await startPostgresServer({ runDir: mkdtempSync(...), owner: process.pid })
 */
export async function startPostgresServer(options: {
  runDir: string
  owner: number
}): Promise<{ port: number; stop: () => Promise<void> }> {
  const binDir = findPgBinDir()
  if (binDir === undefined) throw new Error(PG_SKIP_REASON)
  const { runDir, owner } = options
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
  const settings = [
    `-p ${port}`,
    `-k ${runDir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ')
  const pgCtl = join(binDir, 'pg_ctl')
  await runPg(pgCtl, [
    'start',
    '-w',
    '-D',
    dataDir,
    '-l',
    join(runDir, 'server.log'),
    '-o',
    settings,
  ])
  const stopCommand = `${isRoot ? 'runuser -u postgres -- ' : ''}'${pgCtl}' stop -D '${dataDir}' -m immediate`
  // Stops the server and removes its files when the owner has gone, even after a SIGKILL.
  spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${owner} 2>/dev/null; do sleep 1; done; ${stopCommand}; rm -rf '${runDir}'`,
    ],
    { detached: true, stdio: 'ignore' },
  ).unref()
  return {
    port,
    stop: async () => {
      await runPg(pgCtl, ['stop', '-D', dataDir, '-m', 'fast'])
    },
  }
}

/**
 * A new database on the server at `port`: its `postgres://` URL. Empty, or a copy of database
 * `template` (CREATE DATABASE ... TEMPLATE: a file copy, faster than running its migrations again;
 * nobody may be connected to the template meanwhile).
 *
 * @example
 * const url = await createPgDatabase(port)
 */
export async function createPgDatabase(port: number, template?: string): Promise<string> {
  const name = `understudy_${randomBytes(6).toString('hex')}`
  // loaded here, not at the top: most users of this module never reach a database
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
  await admin.connect()
  try {
    // CREATE DATABASE copies its template and fails while another session uses it: retry a moment later.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(
          `CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`,
        )
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
  return `postgres://postgres@127.0.0.1:${port}/${name}`
}

import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { copyHistoriesToStore } from '../../deploy/index.js'
import { createSilentLogger } from '../../log/index.js'
import { copySqliteToPostgres, openPostgresStore } from '../../store/index.js'
import { requireFeaturePackage } from '../optional-packages.js'
import { UsageError } from '../usage-error.js'
import type { CommandIo } from './io.js'

const adminMigrateHelp = `Usage: understudy admin migrate --from sqlite:DIR --to postgres://user:pass@host:5432/db [--force]

Copies every record of a platform's SQLite store (DIR/understudy.db) into a PostgreSQL database,
in one PostgreSQL transaction, keeping ids; creates the PostgreSQL schema first. Stop the
platform first: records it writes during the copy are not copied. The bytes of the asset files
(DIR/assets/) are copied in the same transaction, then the inspection records kept from stopped
runtimes (DIR/inspection-history/).

Flags:
  --from sqlite:DIR    the platform's data dir
  --to URL             the PostgreSQL database (postgres:// or postgresql://)
  --force              replace the records the target already holds (refused without it)
`

/**
 * `understudy admin migrate`: the copy of a SQLite store into PostgreSQL; prints what it copied.
 *
 * @example
 * await runAdminMigrate(['--from', 'sqlite:./data', '--to', 'postgres://u@db/understudy'], io)
 */
export async function runAdminMigrate(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help === true) {
    io.stdout.write(adminMigrateHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  const from = values.from ?? ''
  if (!from.startsWith('sqlite:') || from.length === 'sqlite:'.length) {
    throw new UsageError('--from must be sqlite:DIR, the data dir of the platform to copy')
  }
  const to = values.to ?? ''
  if (!/^postgres(ql)?:\/\/\S+$/.test(to)) {
    throw new UsageError('--to must be a postgres:// or postgresql:// URL')
  }
  requireFeaturePackage('pg')
  const dataDir = resolve(from.slice('sqlite:'.length))
  const report = await copySqliteToPostgres({ dataDir, url: to, force: values.force === true })
  const rows = report.tables.reduce((sum, t) => sum + t.rows, 0)
  io.stdout.write(
    `copied ${rows} rows of ${report.tables.length} tables from sqlite:${dataDir} to ${report.target}\n`,
  )
  for (const t of report.tables) io.stdout.write(`  ${t.table}: ${t.rows}\n`)
  const { copied, bytes, missing } = report.assetFiles
  io.stdout.write(`copied ${copied} asset files (${bytes} bytes) from ${dataDir}/assets\n`)
  if (missing.length > 0) {
    // The source's rows name them, but its data dir lacks them: their downloads failed there too.
    io.stderr.write(`asset files missing from ${dataDir}/assets: ${missing.join(', ')}\n`)
  }
  // After the records, whose mock services they belong to: a convenience, not records, so a
  // history that cannot be copied is skipped rather than undoing the copy.
  const store = await openPostgresStore({ url: to, log: createSilentLogger() })
  try {
    const histories = await copyHistoriesToStore(
      dataDir,
      store.keptInspections,
      createSilentLogger(),
    )
    io.stdout.write(`copied the kept inspection records of ${histories} mock services\n`)
  } finally {
    await store.close()
  }
  return 0
}

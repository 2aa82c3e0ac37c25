import { resolve } from 'node:path'
import { createAccount } from '../../api/index.js'
import { createSilentLogger } from '../../log/index.js'
import { openPostgresStore, openSqliteStore, type Store } from '../../store/index.js'
import { requireFeaturePackage } from '../optional-packages.js'
import { parseFlags } from '../flags.js'
import { UsageError } from '../usage-error.js'
import type { CommandIo } from './io.js'

export const adminHelp = `Usage: understudy admin create-account --name NAME --email EMAIL [--data-dir ./data | --store URL]
       understudy admin migrate --from sqlite:DIR --to postgres://... [--force]

Operator tasks on a platform's data (the platform may be running, except during migrate).

  create-account   a new account with its owner (created, or attached when the e-mail is known),
                   a default workspace, and an API key for the owner, printed once:
                   "api key: <id>:<secret>" (HTTP Basic user and password).
  migrate          copies a platform's SQLite store into PostgreSQL (understudy admin migrate --help).

Flags:
  --name NAME        the account's name
  --email EMAIL      the owner's e-mail
  --data-dir DIR     the platform's data dir (default ./data), whose SQLite file holds the records
  --store URL        the platform's PostgreSQL database instead (postgres://...; also UNDERSTUDY_STORE)
`

/** `understudy admin create-account`: prints a working API key of the new account's owner. */
export async function runAdminCommand(args: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = args
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(adminHelp)
    return sub === undefined ? 2 : 0
  }
  if (sub === 'migrate') return await (await import('./admin-migrate.js')).runAdminMigrate(rest, io)
  if (sub !== 'create-account') {
    throw new UsageError(`unknown admin command "${sub}"; expected create-account or migrate`)
  }
  const { values, positionals } = parseFlags({
    args: rest,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      'data-dir': { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help === true) {
    io.stdout.write(adminHelp)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`)
  const name = values.name?.trim() ?? ''
  const email = values.email?.trim() ?? ''
  if (name === '' || name.length > 200) {
    throw new UsageError('--name is required (1 to 200 characters)')
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw new UsageError('--email must be an e-mail address')
  }
  const store = await openAdminStore(values.store, values['data-dir'])
  try {
    const made = await store.write(async (tx) => createAccount(tx, { name, email }))
    io.stdout.write(
      `account ${made.account.id} "${made.account.name}": owner ${made.owner.email} (user ${made.owner.id}), workspace ${made.workspace.id}\n`,
    )
    io.stdout.write(`api key: ${made.apiKey.id}:${made.apiKey.secret}\n`)
    return 0
  } finally {
    await store.close()
  }
}

/**
 * The store of the platform the command works on: PostgreSQL when `--store` (or UNDERSTUDY_STORE,
 * as for `understudy platform`) names one, else the SQLite file in the data dir.
 */
async function openAdminStore(
  storeFlag: string | undefined,
  dataDir: string | undefined,
): Promise<Store> {
  const fromEnv = process.env['UNDERSTUDY_STORE']
  const url = storeFlag ?? (fromEnv === '' ? undefined : fromEnv)
  if (url === undefined) return await openSqliteStore({ dataDir: resolve(dataDir ?? './data') })
  if (!/^postgres(?:ql)?:\/\/./.test(url)) {
    throw new UsageError(
      '--store must be a postgres:// or postgresql:// URL (without it the store is SQLite, in --data-dir)',
    )
  }
  if (storeFlag !== undefined && dataDir !== undefined) {
    throw new UsageError('--data-dir and --store name two stores: give one')
  }
  requireFeaturePackage('pg')
  return await openPostgresStore({ url, log: createSilentLogger() })
}

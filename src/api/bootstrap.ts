import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createError } from '../errors/index.js'
import type { Store } from '../store/index.js'
import { hashSecret } from './auth.js'

/** What the first start created (or found), for the log and the credentials file. */
export interface BootstrapOutcome {
  created: boolean
  accountId: number
  workspaceId: number
  userId: number
  email: string
  /** Set when this start created an API key: shown once, never stored in clear. */
  apiKey: { id: string; secret: string; generated: boolean } | null
  credentialsFile: string | null
}

interface BootstrapOptions {
  dataDir: string
  /** UNDERSTUDY_API_KEY_ID / UNDERSTUDY_API_KEY_SECRET, when set. */
  apiKeyId?: string
  apiKeySecret?: string
}

/** The admin user the bootstrap creates. */
const BOOTSTRAP_EMAIL = 'admin@understudy.local'

/**
 * Checks the key given in the environment, without touching the store (so that the platform can
 * refuse it before migrating a data dir). Returns whether a key is given; throws why it is unusable.
 *
 * @example
 * checkBootstrapKey({ apiKeyId: 'ci', apiKeySecret: 's' }) // throws: ids are 4 to 128 characters
 */
export function checkBootstrapKey(
  options: Pick<BootstrapOptions, 'apiKeyId' | 'apiKeySecret'>,
): boolean {
  const given =
    options.apiKeyId !== undefined &&
    options.apiKeyId !== '' &&
    options.apiKeySecret !== undefined &&
    options.apiKeySecret !== ''
  if (options.apiKeyId !== undefined && options.apiKeyId !== '' && !given) {
    throw createError('ERR_CONFIG_INVALID', [
      'UNDERSTUDY_API_KEY_ID is set without UNDERSTUDY_API_KEY_SECRET',
    ])
  }
  if (given && !/^[A-Za-z0-9._-]{4,128}$/.test(options.apiKeyId as string)) {
    throw createError('ERR_CONFIG_INVALID', [
      'UNDERSTUDY_API_KEY_ID must be 4 to 128 letters, digits, dots, dashes or underscores',
    ])
  }
  return given
}

/**
 * The bootstrap of docs/architecture.md#start-up-contract: on an empty store, one account, one
 * workspace and one admin user with an API key. The key is
 * `UNDERSTUDY_API_KEY_ID`:`UNDERSTUDY_API_KEY_SECRET` when both are set; otherwise one is generated
 * and written to `<data-dir>/bootstrap-credentials.json` (mode 0600). On a store that already has
 * an account, nothing is created, except that a key given in the environment and not known yet is
 * added to the admin user (so that CI can set the key of an existing data dir).
 *
 * @example
 * const outcome = await bootstrap(store, { dataDir: './data' })
 */
export async function bootstrap(
  store: Store,
  options: BootstrapOptions,
): Promise<BootstrapOutcome> {
  const given = checkBootstrapKey(options)
  const apiKey = given
    ? { id: options.apiKeyId as string, secret: options.apiKeySecret as string, generated: false }
    : {
        id: randomBytes(12).toString('hex'),
        secret: randomBytes(24).toString('base64url'),
        generated: true,
      }
  const secretHash = await hashSecret(apiKey.secret)

  const outcome = await store.write(async (tx): Promise<BootstrapOutcome> => {
    if ((await tx.accounts.count()) > 0) {
      const user = await tx.users.getByEmail(BOOTSTRAP_EMAIL)
      const accountId = user?.accountId ?? 1
      const workspaces = await tx.workspaces.listByAccount(accountId, { limit: 1, skip: 0 })
      let added: BootstrapOutcome['apiKey'] = null
      if (given && user !== undefined && (await tx.apiKeys.get(apiKey.id)) === undefined) {
        await tx.apiKeys.create({
          id: apiKey.id,
          userId: user.id,
          name: 'bootstrap (environment)',
          secretHash,
        })
        added = apiKey
      }
      return {
        created: false,
        accountId,
        workspaceId: workspaces.items[0]?.id ?? 0,
        userId: user?.id ?? 0,
        email: BOOTSTRAP_EMAIL,
        apiKey: added,
        credentialsFile: null,
      }
    }
    const account = await tx.accounts.create({ name: 'Default account' })
    const user = await tx.users.create({
      email: BOOTSTRAP_EMAIL,
      firstName: 'Understudy',
      lastName: 'Admin',
      enabled: true,
      accountRoles: ['owner', 'admin'],
      accountId: account.id,
    })
    const workspace = await tx.workspaces.create({
      accountId: account.id,
      name: 'Default workspace',
      enabled: true,
      dedicatedIpsEnabled: false,
      privateLocationsEnabled: false,
      userId: user.id,
    })
    await tx.apiKeys.create({ id: apiKey.id, userId: user.id, name: 'bootstrap', secretHash })
    return {
      created: true,
      accountId: account.id,
      workspaceId: workspace.id,
      userId: user.id,
      email: user.email,
      apiKey,
      credentialsFile: null,
    }
  })
  if (outcome.created && apiKey.generated) {
    const file = join(options.dataDir, 'bootstrap-credentials.json')
    const content = {
      apiKeyId: apiKey.id,
      apiKeySecret: apiKey.secret,
      basic: Buffer.from(`${apiKey.id}:${apiKey.secret}`).toString('base64'),
      accountId: outcome.accountId,
      workspaceId: outcome.workspaceId,
      userId: outcome.userId,
      email: outcome.email,
    }
    writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 })
    outcome.credentialsFile = file
  }
  return outcome
}

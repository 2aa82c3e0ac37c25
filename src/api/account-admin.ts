import type { Account, Repositories, User, Workspace } from '../store/index.js'
import { generateApiKey } from './keys.js'

/** What creating an account made: the owner's API key secret is shown once. */
interface CreatedAccount {
  account: Account
  owner: User
  workspace: Workspace
  apiKey: { id: string; secret: string }
}

/**
 * Creates an account with its owner (owner and admin roles; an existing user of that e-mail is
 * attached, never duplicated), a default workspace, and a new API key for the owner. Used by
 * `understudy admin create-account` and by `POST /api/v4/accounts` (platform operators).
 *
 * @example
 * const made = await store.write(async (tx) => createAccount(tx, { name: 'Globex', email: 'hank@globex.test' }))
 */
export async function createAccount(
  tx: Repositories,
  input: { name: string; email: string; firstName?: string; lastName?: string },
): Promise<CreatedAccount> {
  const key = await generateApiKey()
  const account = await tx.accounts.create({ name: input.name })
  const roles = ['owner', 'admin']
  let owner = await tx.users.getByEmail(input.email)
  if (owner === undefined) {
    owner = await tx.users.create({
      email: input.email,
      firstName: input.firstName ?? input.email.split('@')[0] ?? '',
      lastName: input.lastName ?? '',
      enabled: true,
      accountRoles: roles,
      accountId: account.id,
    })
  } else {
    await tx.tenancy.setMember({ accountId: account.id, userId: owner.id, roles, enabled: true })
  }
  const workspace = await tx.workspaces.create({
    accountId: account.id,
    name: 'Default workspace',
    enabled: true,
    dedicatedIpsEnabled: false,
    privateLocationsEnabled: false,
    userId: owner.id,
  })
  await tx.apiKeys.create({
    id: key.id,
    userId: owner.id,
    name: `owner of ${input.name}`,
    secretHash: key.secretHash,
  })
  return { account, owner, workspace, apiKey: { id: key.id, secret: key.secret } }
}

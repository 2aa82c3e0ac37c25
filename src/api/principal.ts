import type { Account, AccountMember, User } from '../store/index.js'

/** The authenticated caller: the API key's user, its current account, and its enabled account memberships. */
export interface Principal {
  user: User
  /** The user's home account (or first account): the scope of account-wide catalog objects (tags). */
  account: Account
  apiKeyId: string
  memberships: AccountMember[]
}

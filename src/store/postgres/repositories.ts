import type { Repositories } from '../repositories.js'
import {
  pgAccountRepository,
  pgApiKeyRepository,
  pgUserRepository,
  pgWorkspaceRepository,
} from './admin-repositories.js'
import { pgServiceRepository, pgTagRepository } from './catalog-repositories.js'
import type { PgRepoContext } from './context.js'
import { pgOperationsRepositories } from './operations-repositories.js'
import { pgSearchRepository } from './search-repository.js'
import { pgTenancyRepository } from './tenancy-repository.js'
import { pgTransactionRepository } from './transaction-repository.js'
import { sharedRepositories, transactionServices } from '../shared/index.js'
import { pgSqlRunner } from './sql.js'

/**
 * Every PostgreSQL repository over one context.
 *
 * @example
 * const tx = createPgRepositories({ db: client, check, now: Date.now })
 */
export function createPgRepositories(ctx: PgRepoContext): Repositories {
  const run = pgSqlRunner(ctx)
  return {
    accounts: pgAccountRepository(ctx),
    users: pgUserRepository(ctx),
    apiKeys: pgApiKeyRepository(ctx),
    workspaces: pgWorkspaceRepository(ctx),
    services: pgServiceRepository(ctx),
    tags: pgTagRepository(ctx),
    transactions: { ...pgTransactionRepository(ctx), ...transactionServices(run) },
    tenancy: pgTenancyRepository(ctx),
    search: pgSearchRepository(ctx),
    ...pgOperationsRepositories(ctx),
    ...sharedRepositories(run, ctx.now),
  }
}

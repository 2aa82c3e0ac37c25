import { randomBytes } from 'node:crypto'
import { hashSecret } from './auth.js'

/** A new API key: a public id and a secret shown once; only `secretHash` is ever stored. */
interface NewApiKey {
  id: string
  secret: string
  secretHash: string
}

/**
 * Generates an API key (24 hex id, 32-character base64url secret) and its scrypt hash.
 *
 * @example
 * const key = await generateApiKey(); await tx.apiKeys.create({ id: key.id, userId, name: 'ci', secretHash: key.secretHash })
 */
export async function generateApiKey(): Promise<NewApiKey> {
  const id = randomBytes(12).toString('hex')
  const secret = randomBytes(24).toString('base64url')
  return { id, secret, secretHash: await hashSecret(secret) }
}

import { createHash } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { Ship } from '../../store/index.js'
import { verifySecret } from '../auth.js'
import type { ApiContext } from '../http/types.js'

/** How long a verified agent token is remembered, so that scrypt runs once per agent, not per heartbeat. */
const CACHE_MS = 5 * 60 * 1000
const CACHE_SIZE = 1000

/** sha256 of a token that verified, with its ship and when it expires from the cache. */
const verified = new Map<string, { shipId: string; harborId: string; until: number }>()

/**
 * The ship an agent route acts as. Agent routes are `auth: 'none'` for the user API keys: they
 * carry the ship's own token (`Authorization: Bearer <token>`, shown once when the ship was
 * created), which lets that agent read and report only its own work. An unknown harbor or ship,
 * or a token of another ship, answers the same 401, so that a refusal never tells which ships exist.
 *
 * @example
 * const ship = await shipOfAgent(ctx) // ctx.params['harborId'], ctx.params['shipId']
 */
export async function shipOfAgent(ctx: ApiContext): Promise<Ship> {
  const harborId = ctx.params['harborId'] ?? ''
  const shipId = ctx.params['shipId'] ?? ''
  const token = bearerToken(ctx.req.headers.authorization)
  if (token === undefined) {
    throw unauthorized('send the ship token as Authorization: Bearer <token>')
  }
  const ship = await ctx.deps.store.locations.ship(harborId, shipId)
  if (ship === undefined) throw unauthorized('the ship token does not match this ship')
  const digest = createHash('sha256').update(token).digest('hex')
  const now = Date.now()
  const known = verified.get(digest)
  if (known !== undefined && known.until > now) {
    if (known.shipId === shipId && known.harborId === harborId) return ship
    throw unauthorized('the ship token does not match this ship')
  }
  if (!(await verifySecret(token, ship.tokenHash))) {
    throw unauthorized('the ship token does not match this ship')
  }
  if (verified.size >= CACHE_SIZE) verified.clear()
  verified.set(digest, { shipId, harborId, until: now + CACHE_MS })
  return ship
}

/** Forgets the verified tokens of a ship (deleted ships must stop authenticating at once). */
export function forgetAgentTokens(shipId: string): void {
  for (const [digest, entry] of verified) if (entry.shipId === shipId) verified.delete(digest)
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

function unauthorized(why: string): Error {
  return createError('ERR_API_UNAUTHORIZED', [], {
    details: [{ path: '/authorization', message: why }],
  })
}

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'

/** What a dashboard session stands for, kept only sealed in the store. */
interface SessionSecrets {
  /** `Authorization` header value of the API key the session signed in with. */
  authorization: string
  csrfToken: string
  /** `Authorization` of the session's own monitoring token, when it has one. */
  monitorAuthorization: string | null
}

const INFO = 'understudy dashboard session'
const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * The store key of a session id: its SHA-256. The id is 32 random bytes, so a fast hash is
 * enough (nothing to guess), and the stored key cannot be turned back into a cookie.
 */
export function sessionKeyOf(id: string): string {
  return createHash('sha256').update(id).digest('hex')
}

function keyOf(id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', id, Buffer.alloc(0), INFO, 32))
}

/**
 * Encrypts a session's secrets (AES-256-GCM) under a key derived from its id, which only the
 * browser's cookie carries: whoever reads the store (a backup, another tenant's bug) learns no
 * API key secret and can forge no session, yet any platform instance handed the cookie can open it.
 */
export function sealSession(id: string, secrets: SessionSecrets): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keyOf(id), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The secrets of a sealed session; undefined when it does not open with this id (or is damaged). */
export function openSession(id: string, sealed: string): SessionSecrets | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', keyOf(id), raw.subarray(0, IV_BYTES))
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    const text = Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8')
    const parsed = JSON.parse(text) as Partial<SessionSecrets>
    if (typeof parsed.authorization !== 'string' || typeof parsed.csrfToken !== 'string') {
      return undefined
    }
    return {
      authorization: parsed.authorization,
      csrfToken: parsed.csrfToken,
      monitorAuthorization:
        typeof parsed.monitorAuthorization === 'string' ? parsed.monitorAuthorization : null,
    }
  } catch {
    return undefined
  }
}

import { createHmac, timingSafeEqual } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { Asset } from '../../store/index.js'
import type { Route } from '../http/types.js'

/*
 * Download links of assets: `GET .../assets/{id}/download` answers a URL of the platform that
 * serves the bytes to whoever holds it, for a limited time, without credentials (the mock services
 * specification: "a URL string from which the file is downloaded separately"). The URL carries a
 * token: the claims `{assetId, workspaceId, fileId, exp}` in base64url JSON, a dot, and their
 * HMAC-SHA256 under the platform's signing key. Naming the file id makes a link die with its asset
 * (deleted, or replaced by another asset under the same id, which cannot happen as ids are never
 * reused).
 */

/** How long a download link works: 15 minutes, long enough for a slow client to start. */
const DOWNLOAD_TTL_SECONDS = 15 * 60

/** The path prefix of download links (`auth: 'none'`). */
const ASSET_FILES_PATH = '/api/v1/asset-files'

interface Claims {
  assetId: number
  workspaceId: number
  fileId: string
  /** Expiry, epoch seconds. */
  exp: number
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest()
}

/**
 * A signed download URL for an asset, valid `DOWNLOAD_TTL_SECONDS` from `now`.
 *
 * @example
 * downloadUrl('http://127.0.0.1:8080', key, asset) // 'http://127.0.0.1:8080/api/v1/asset-files/eyJh...Q.k3v...'
 */
export function downloadUrl(baseUrl: string, key: Buffer, asset: Asset, now = Date.now()): string {
  const claims: Claims = {
    assetId: asset.id,
    workspaceId: asset.workspaceId,
    fileId: asset.fileId,
    exp: Math.floor(now / 1000) + DOWNLOAD_TTL_SECONDS,
  }
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
  return `${baseUrl.replace(/\/+$/, '')}${ASSET_FILES_PATH}/${payload}.${mac(key, payload).toString('base64url')}`
}

/** The link error: 404 whatever the reason (a forged link learns nothing), the reason in details. */
function deadLink(reason: string) {
  return createError('ERR_API_NOT_FOUND', ['Download link'], {
    details: [{ path: '/token', message: reason }],
  })
}

/**
 * The claims of a token whose signature holds and which has not expired; else 404 naming why
 * (`is not a valid download link`, `has expired`).
 *
 * @example
 * const claims = verifyToken(key, token)
 */
function verifyToken(key: Buffer, token: string, now = Date.now()): Claims {
  const [payload, signature, extra] = token.split('.')
  if (payload === undefined || signature === undefined || extra !== undefined) {
    throw deadLink('is not a valid download link')
  }
  const given = Buffer.from(signature, 'base64url')
  const expected = mac(key, payload)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw deadLink('is not a valid download link')
  }
  let claims: Partial<Claims>
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Claims>
  } catch {
    throw deadLink('is not a valid download link')
  }
  if (
    typeof claims.assetId !== 'number' ||
    typeof claims.workspaceId !== 'number' ||
    typeof claims.fileId !== 'string' ||
    typeof claims.exp !== 'number'
  ) {
    throw deadLink('is not a valid download link')
  }
  if (claims.exp * 1000 <= now) throw deadLink('has expired: ask for a new link')
  return {
    assetId: claims.assetId,
    workspaceId: claims.workspaceId,
    fileId: claims.fileId,
    exp: claims.exp,
  }
}

/**
 * The `Content-Disposition` of a download: the last segment of the stored name only (an asset's
 * name may be a path such as `../../etc/passwd` or `C:\\tmp\\a.mar`, which a client must never be
 * told to write), as a quoted ASCII fallback and its RFC 5987 `filename*` form (RFC 6266).
 *
 * @example
 * contentDisposition('/tmp/dé jà.mar') // `attachment; filename="d_ j_.mar"; filename*=UTF-8''d%C3%A9%20j%C3%A0.mar`
 */
function contentDisposition(name: string): string {
  const base = downloadName(name)
  const ascii = base.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(base)}`
}

/** The last path segment of a stored name, without control characters; `download` when none is left. */
function downloadName(name: string): string {
  const segment = name
    .split(/[/\\]/)
    .filter((s) => s !== '' && s !== '.' && s !== '..')
    .pop()
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    ?.replace(/[\x00-\x1f\x7f]/g, '')
    .trim()
  return segment === undefined || segment === '' ? 'download' : segment
}

/** Percent-encodes everything outside RFC 5987's attr-char (encodeURIComponent leaves `'()*` as they are). */
function rfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/**
 * `GET /api/v1/asset-files/{token}` (no credentials): the bytes of the asset the token names, as
 * an attachment with its uploaded content type. A tampered or expired token, or an asset deleted
 * since, is 404 in the v1 envelope.
 */
export const assetFileRoutes: Route[] = [
  {
    method: 'GET',
    path: `${ASSET_FILES_PATH}/:token`,
    family: 'v1',
    auth: 'none',
    handler: async (ctx) => {
      const claims = verifyToken(ctx.deps.options.signingKey, ctx.params['token'] ?? '')
      const asset = await ctx.deps.store.assets.get(claims.workspaceId, claims.assetId)
      if (asset === undefined || asset.fileId !== claims.fileId) {
        throw deadLink('names an asset that no longer exists')
      }
      const bytes = await ctx.deps.files.get(asset.fileId)
      if (bytes === undefined) throw deadLink('names an asset whose file is missing')
      return {
        status: 200,
        raw: bytes,
        headers: {
          'content-type': asset.contentType ?? 'application/octet-stream',
          'content-disposition': contentDisposition(asset.name),
          // user content on the platform's origin: never sniffed or rendered as a page
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, no-store',
        },
      }
    },
  },
]

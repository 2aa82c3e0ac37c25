import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { assetsPath, envelope, expectError, formOf } from './catalog-helpers.js'

const BYTES = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x10, 0x20])

async function assetWithLink(
  platform: TestPlatform,
  filename?: string,
): Promise<{ id: number; url: string }> {
  const fields: Record<string, string> = {
    type: 'MAR',
    platformVseId: '0',
    ...(filename === undefined ? {} : { filename }),
  }
  const created = await platform.request(assetsPath(platform), {
    method: 'POST',
    body: formOf(fields, [{ name: 'pets.mar', bytes: BYTES, type: 'application/java-archive' }]),
  })
  expect(created.status).toBe(201)
  const id = (await envelope<{ id: number }>(created)).result.id
  const res = await platform.request(`${assetsPath(platform)}/${id}/download`)
  expect(res.status).toBe(200)
  const body = await envelope<string>(res)
  expect(typeof body.result).toBe('string')
  return { id, url: body.result }
}

describe('/api/v1 assets: download links', () => {
  it('answers a URL of the platform, without credentials in it, that serves the bytes without credentials', async () => {
    const platform = await startTestPlatform()
    const { url } = await assetWithLink(platform)
    expect(url.startsWith(`${platform.url}/api/v1/asset-files/`)).toBe(true)
    expect(url).not.toContain(platform.auth.replace(/^Basic /, ''))
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(BYTES)
    expect(res.headers.get('content-type')).toBe('application/java-archive')
    expect(res.headers.get('content-disposition')).toContain('attachment; filename="pets.mar"')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // a link can be used more than once while it is valid
    expect((await fetch(url)).status).toBe(200)
  })

  it('keeps any file name safe in content-disposition', async () => {
    const platform = await startTestPlatform()
    const { url } = await assetWithLink(platform, 'dé"jà vu.mar')
    const res = await fetch(url)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="d__j_ vu.mar"; filename*=UTF-8''${encodeURIComponent('dé"jà vu.mar')}`,
    )
  })

  it('refuses a tampered link with 404 in the envelope', async () => {
    const platform = await startTestPlatform()
    const { url } = await assetWithLink(platform)
    const [payload, signature] = url.slice(url.lastIndexOf('/') + 1).split('.') as [string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >
    const forged = Buffer.from(
      JSON.stringify({ ...claims, exp: Number(claims['exp']) + 3600 }),
    ).toString('base64url')
    const base = `${platform.url}/api/v1/asset-files/`
    for (const token of [
      `${forged}.${signature}`,
      `${payload}.${signature.slice(0, -2)}AA`,
      payload,
      `${payload}.${signature}.x`,
      'garbage',
    ]) {
      const res = await fetch(base + token)
      const body = await expectError(res, 404, 'ERR_API_NOT_FOUND', '/token')
      expect(body.error?.details?.[0]?.message).toBe('is not a valid download link')
    }
  })

  it('refuses an expired link (after 15 minutes) with 404 saying it expired', async () => {
    const platform = await startTestPlatform()
    const { url } = await assetWithLink(platform)
    vi.useFakeTimers({ toFake: ['Date'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    vi.setSystemTime(Date.now() + 14 * 60 * 1000)
    expect((await fetch(url)).status).toBe(200)
    vi.setSystemTime(Date.now() + 2 * 60 * 1000)
    const body = await expectError(await fetch(url), 404, 'ERR_API_NOT_FOUND', '/token')
    expect(body.error?.details?.[0]?.message).toContain('expired')
  })

  it('stops serving a link once its asset is deleted', async () => {
    const platform = await startTestPlatform()
    const { id, url } = await assetWithLink(platform)
    expect(
      (await platform.request(`${assetsPath(platform)}/${id}`, { method: 'DELETE' })).status,
    ).toBe(200)
    await expectError(await fetch(url), 404, 'ERR_API_NOT_FOUND', '/token')
  })

  it('does not accept a link signed by another platform', async () => {
    const one = await startTestPlatform()
    const two = await startTestPlatform()
    const { url } = await assetWithLink(one)
    await expectError(
      await fetch(two.url + url.slice(one.url.length)),
      404,
      'ERR_API_NOT_FOUND',
      '/token',
    )
  })
})

import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js'
import { assetsPath, envelope, formOf } from '../e2e/platform/catalog-helpers.js'

// Defect: the download's Content-Disposition carried the asset's stored name as it was given,
// path included (`../../..`, `/tmp/...`), inviting a client to write outside its download folder.
describe('an asset download names the base name of the file only', () => {
  async function dispositionOf(platform: TestPlatform, filename: string): Promise<string | null> {
    const form = formOf({ type: 'MAR', platformVseId: '0', filename }, [
      { name: 'pets.mar', bytes: 'PK', type: 'application/java-archive' },
    ])
    const created = await platform.request(assetsPath(platform), { method: 'POST', body: form })
    expect(created.status).toBe(201)
    const id = (await envelope<{ id: number }>(created)).result.id
    const link = await envelope<string>(
      await platform.request(`${assetsPath(platform)}/${id}/download`),
    )
    const res = await fetch(link.result)
    expect(res.status).toBe(200)
    return res.headers.get('content-disposition')
  }

  it('drops every directory of the stored name, relative, absolute or Windows', async () => {
    const platform = await startTestPlatform()
    expect(await dispositionOf(platform, '../../../etc/passwd')).toBe(
      `attachment; filename="passwd"; filename*=UTF-8''passwd`,
    )
    expect(await dispositionOf(platform, '/tmp/cron.d/job.mar')).toBe(
      `attachment; filename="job.mar"; filename*=UTF-8''job.mar`,
    )
    expect(await dispositionOf(platform, 'C:\\Windows\\System32\\x.mar')).toBe(
      `attachment; filename="x.mar"; filename*=UTF-8''x.mar`,
    )
  })

  it('encodes the base name as RFC 6266 asks: an ASCII fallback and filename* in UTF-8', async () => {
    const platform = await startTestPlatform()
    expect(await dispositionOf(platform, 'a/né (v2)*.mar')).toBe(
      `attachment; filename="n_ (v2)*.mar"; filename*=UTF-8''n%C3%A9%20%28v2%29%2A.mar`,
    )
    expect(await dispositionOf(platform, '../..')).toBe(
      `attachment; filename="download"; filename*=UTF-8''download`,
    )
  })
})

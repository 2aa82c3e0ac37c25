import { describe, expect, it } from 'vitest'
import { startPlatformInstances } from '../helpers/instances.js'
import { freshPgDatabase, hasPostgres, PG_SKIP_REASON } from '../helpers/postgres.js'

/*
 * An asset's bytes were written under the data dir of the platform instance that received the
 * upload, so its download through any other instance on the same database failed (the row was
 * there, the file was not), and a download link made by one instance was refused by the others
 * (each signed links with a key of its own). The bytes are rows of the store now, and the key is
 * the store's.
 */

if (!hasPostgres) console.warn(`asset bytes regression skipped: ${PG_SKIP_REASON}`)

describe.skipIf(!hasPostgres)('an asset uploaded through one platform instance', () => {
  it('is downloaded through another, with its link or one of its own', async () => {
    const store = await freshPgDatabase()
    if (store === undefined) return
    const group = await startPlatformInstances(2, store)
    const [a, b] = group.instances.map((i) => i.url) as [string, string]
    const assets = `/api/v1/workspaces/${group.workspaceId}/assets`
    const bytes = Buffer.from([0, 1, 2, 255, ...Buffer.from('MAR bytes')])
    const form = new FormData()
    form.append('type', 'MAR')
    form.append('file', new Blob([bytes]), 'pets.mar')
    const uploaded = await fetch(a + assets, {
      method: 'POST',
      headers: { authorization: group.auth },
      body: form,
    })
    expect(uploaded.status).toBe(201)
    const { id } = ((await uploaded.json()) as { result: { id: number } }).result

    const linkOf = async (base: string): Promise<string> => {
      const res = await fetch(`${base}${assets}/${id}/download`, {
        headers: { authorization: group.auth },
      })
      expect(res.status).toBe(200)
      return ((await res.json()) as { result: string }).result
    }
    const own = await fetch(await linkOf(b))
    expect(own.status).toBe(200)
    expect(Buffer.from(await own.arrayBuffer()).equals(bytes)).toBe(true)
    const madeByA = await linkOf(a)
    const followedAtB = await fetch(b + madeByA.slice(a.length))
    expect(followedAtB.status).toBe(200)
    expect(Buffer.from(await followedAtB.arrayBuffer()).equals(bytes)).toBe(true)
  })
})

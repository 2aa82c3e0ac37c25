import { describe, expect, it } from 'vitest'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { createService, createTransactions, envelope, expectError, txn } from './catalog-helpers.js'

interface TagBody {
  id: number
  name: string
  description: string | null
  created: number | string
  updated: number | string
  createdBy: string
  updatedBy: string
}

async function createTag(
  platform: TestPlatform,
  name: string,
  description: string | null = null,
): Promise<TagBody> {
  const res = await platform.request('/api/v1/tags', {
    method: 'POST',
    json: { name, description },
  })
  expect(res.status).toBe(201)
  return (await envelope<TagBody>(res)).result
}

describe('/api/v1 tags', () => {
  it('creates a tag with 201 and the exact Tag shape', async () => {
    const platform = await startTestPlatform()
    const tag = await createTag(platform, 'smoke', 'Smoke tests')
    expect(Object.keys(tag).sort()).toEqual([
      'created',
      'createdBy',
      'description',
      'id',
      'name',
      'updated',
      'updatedBy',
    ])
    expect(tag).toMatchObject({
      name: 'smoke',
      description: 'Smoke tests',
      createdBy: 'admin@understudy.local',
    })
    expect(Number.isInteger(tag.id)).toBe(true)
    expect(Number.isInteger(tag.created)).toBe(true)
  })

  it('gets a tag by id and by name', async () => {
    const platform = await startTestPlatform()
    const tag = await createTag(platform, 'needs review')
    const byId = await platform.request(`/api/v1/tags/${tag.id}`)
    expect(byId.status).toBe(200)
    expect((await envelope<TagBody>(byId)).result).toEqual(tag)
    const byName = await platform.request(`/api/v1/tags/name/${encodeURIComponent('needs review')}`)
    expect(byName.status).toBe(200)
    expect((await envelope<TagBody>(byName)).result).toEqual(tag)
  })

  it('finds by name a tag whose name holds a slash, a percent sign and non-ASCII letters', async () => {
    const platform = await startTestPlatform()
    const tag = await createTag(platform, 'a/b 100% déjà')
    const res = await platform.request(`/api/v1/tags/name/${encodeURIComponent('a/b 100% déjà')}`)
    expect(res.status).toBe(200)
    expect((await envelope<TagBody>(res)).result.id).toBe(tag.id)
  })

  it('lists tags paged with total and sorted', async () => {
    const platform = await startTestPlatform()
    for (const name of ['b', 'c', 'a']) await createTag(platform, name)
    const page = await envelope<TagBody[]>(
      await platform.request('/api/v1/tags?limit=2&sort=-name'),
    )
    expect(page).toMatchObject({ limit: 2, skip: 0, total: 3 })
    expect(page.result.map((t) => t.name)).toEqual(['c', 'b'])
    const rest = await envelope<TagBody[]>(
      await platform.request('/api/v1/tags?limit=2&skip=2&sort=-name'),
    )
    expect(rest.result.map((t) => t.name)).toEqual(['a'])
  })

  it('updates a tag by PUT with 201, created and updated shown as ISO 8601', async () => {
    const platform = await startTestPlatform()
    const tag = await createTag(platform, 'smoke')
    const res = await platform.request(`/api/v1/tags/${tag.id}`, {
      method: 'PUT',
      json: { id: tag.id, name: 'regression', description: 'Regression suite' },
    })
    expect(res.status).toBe(201)
    const updated = (await envelope<TagBody>(res)).result
    expect(updated).toMatchObject({
      id: tag.id,
      name: 'regression',
      description: 'Regression suite',
    })
    expect(updated.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(updated.updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(Date.parse(updated.created as string) / 1000).toBeCloseTo(tag.created as number, -1)
  })

  it('deletes a tag with 200 and an empty object as result', async () => {
    const platform = await startTestPlatform()
    const tag = await createTag(platform, 'smoke')
    const res = await platform.request(`/api/v1/tags/${tag.id}`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(await envelope(res)).toMatchObject({ apiVersion: 1, error: null, result: {} })
    await expectError(await platform.request(`/api/v1/tags/${tag.id}`), 404, 'ERR_API_NOT_FOUND')
    await expectError(
      await platform.request(`/api/v1/tags/${tag.id}`, { method: 'DELETE' }),
      404,
      'ERR_API_NOT_FOUND',
    )
  })

  it('answers 409 for a duplicate name on create and on rename', async () => {
    const platform = await startTestPlatform()
    await createTag(platform, 'smoke')
    const other = await createTag(platform, 'slow')
    await expectError(
      await platform.request('/api/v1/tags', { method: 'POST', json: { name: 'smoke' } }),
      409,
      'ERR_API_CONFLICT',
      '/name',
    )
    await expectError(
      await platform.request(`/api/v1/tags/${other.id}`, {
        method: 'PUT',
        json: { name: 'smoke' },
      }),
      409,
      'ERR_API_CONFLICT',
      '/name',
    )
    const names = (
      await envelope<TagBody[]>(await platform.request('/api/v1/tags?sort=id'))
    ).result.map((t) => t.name)
    expect(names).toEqual(['smoke', 'slow'])
  })

  it('answers 404 for unknown ids and names, and for a tag of another account', async () => {
    const platform = await startTestPlatform()
    const theirs = await platform.store.write(async (tx) => {
      const account = await tx.accounts.create({ name: 'other' })
      return tx.tags.create({
        accountId: account.id,
        name: 'secret',
        description: null,
        by: 'x@example.com',
      })
    })
    for (const id of [999, theirs.id]) {
      await expectError(await platform.request(`/api/v1/tags/${id}`), 404, 'ERR_API_NOT_FOUND')
      await expectError(
        await platform.request(`/api/v1/tags/${id}`, { method: 'PUT', json: { name: 'mine' } }),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`/api/v1/tags/${id}`, { method: 'DELETE' }),
        404,
        'ERR_API_NOT_FOUND',
      )
    }
    await expectError(await platform.request('/api/v1/tags/name/secret'), 404, 'ERR_API_NOT_FOUND')
    expect((await envelope<TagBody[]>(await platform.request('/api/v1/tags'))).total).toBe(0)
  })

  it('refuses malformed input with 400 naming the field, and a form body with 415', async () => {
    const platform = await startTestPlatform()
    await expectError(
      await platform.request('/api/v1/tags', { method: 'POST', json: { description: 'x' } }),
      400,
      'ERR_API_VALIDATION',
      '/name',
    )
    await expectError(
      await platform.request('/api/v1/tags', { method: 'POST', json: { name: '' } }),
      400,
      'ERR_API_VALIDATION',
      '/name',
    )
    await expectError(
      await platform.request('/api/v1/tags', { method: 'POST', json: { name: 'a'.repeat(256) } }),
      400,
      'ERR_API_VALIDATION',
      '/name',
    )
    const tag = await createTag(platform, 'smoke')
    await expectError(
      await platform.request(`/api/v1/tags/${tag.id}`, {
        method: 'PUT',
        json: { id: tag.id + 1, name: 'x' },
      }),
      400,
      'ERR_API_VALIDATION',
      '/id',
    )
    await expectError(
      await platform.request('/api/v1/tags/x1'),
      400,
      'ERR_API_VALIDATION',
      '/tagId',
    )
    await expectError(
      await platform.request('/api/v1/tags?sort=secret'),
      400,
      'ERR_API_VALIDATION',
      '/sort',
    )
    await expectError(
      await platform.request('/api/v1/tags', {
        method: 'POST',
        body: 'name=x',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'ERR_API_UNSUPPORTED_MEDIA_TYPE',
    )
  })

  it('answers 401 without credentials', async () => {
    const platform = await startTestPlatform()
    await expectError(
      await platform.request('/api/v1/tags', { headers: { authorization: '' } }),
      401,
      'ERR_API_UNAUTHORIZED',
    )
    await expectError(
      await platform.request('/api/v1/tags/name/x', { headers: { authorization: '' } }),
      401,
      'ERR_API_UNAUTHORIZED',
    )
  })

  it('creates the tags a transaction names that do not exist yet', async () => {
    const platform = await startTestPlatform()
    await createTag(platform, 'smoke', 'kept as is')
    const serviceId = await createService(platform)
    await createTransactions(platform, serviceId, [
      txn('a', '/a', { tags: ['smoke', 'brand-new'] }),
    ])
    const tags = (await envelope<TagBody[]>(await platform.request('/api/v1/tags?sort=name')))
      .result
    expect(tags.map((t) => [t.name, t.description])).toEqual([
      ['brand-new', null],
      ['smoke', 'kept as is'],
    ])
  })
})

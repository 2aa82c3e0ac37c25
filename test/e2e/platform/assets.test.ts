import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AssetFiles } from '../../../src/store/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import {
  assetsPath,
  createService,
  envelope,
  expectError,
  expectScoped,
  formOf,
  insertMockService,
  secondWorkspace,
} from './catalog-helpers.js'

interface AssetBody {
  id: number
  name: string
  description: string
  fileId: string
  folderId: string
  serviceId: number | null
  serviceName: string | null
  tags: string[]
  primaryMetadata: Record<string, unknown>
  secondaryMetadata: Record<string, unknown>
  type: string
  platformVseId: number | null
  size: number
  created: string
  updated: string
  createdBy: string
  updatedBy: string
  createdDate: string
  updatedDate: string
  errors?: Array<{ code: string; message: string; severity: string }>
}

const assetKeys = [
  'created',
  'createdBy',
  'createdDate',
  'description',
  'fileId',
  'folderId',
  'id',
  'name',
  'platformVseId',
  'primaryMetadata',
  'secondaryMetadata',
  'serviceId',
  'serviceName',
  'size',
  'tags',
  'type',
  'updated',
  'updatedBy',
  'updatedDate',
]
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function uploadAsset(
  platform: TestPlatform,
  fields: Record<string, string>,
  bytes: string | Uint8Array = 'MAR-BYTES',
  name = 'pets.mar',
  workspaceId = platform.workspaceId,
): Promise<Response> {
  return platform.request(assetsPath(platform, workspaceId), {
    method: 'POST',
    body: formOf(fields, [{ name, bytes, type: 'application/java-archive' }]),
  })
}

async function createAsset(
  platform: TestPlatform,
  fields: Record<string, string> = { type: 'MAR', platformVseId: '0' },
  bytes?: string,
  name?: string,
): Promise<AssetBody> {
  const res = await uploadAsset(platform, fields, bytes, name)
  expect(res.status).toBe(201)
  return (await envelope<AssetBody>(res)).result
}

/**
 * Files stored: under <data-dir>/assets (temporary ones included) on SQLite, the files with
 * chunks in the store on PostgreSQL.
 */
async function storedFiles(platform: TestPlatform): Promise<string[]> {
  if (platform.files instanceof AssetFiles) return readdirSync(platform.files.dir)
  return await platform.store.assetChunks.filesBefore(Number.MAX_SAFE_INTEGER)
}

describe('/api/v1 assets: upload', () => {
  it('uploads a MAR file with 201 and the exact Asset shape, errors empty', async () => {
    const platform = await startTestPlatform()
    const res = await uploadAsset(platform, { type: 'MAR', platformVseId: '0' })
    expect(res.status).toBe(201)
    const body = await envelope<AssetBody>(res)
    const asset = body.result
    expect(Object.keys(asset).sort()).toEqual([...assetKeys, 'errors'].sort())
    expect(asset).toMatchObject({
      name: 'pets.mar',
      description: '',
      folderId: '',
      serviceId: null,
      serviceName: null,
      tags: [],
      primaryMetadata: {},
      secondaryMetadata: {},
      type: 'MAR',
      platformVseId: null,
      size: 9,
      createdBy: 'admin@understudy.local',
      errors: [],
    })
    expect(asset.fileId).toMatch(/^[0-9a-f-]{36}$/)
    expect(asset.created).toMatch(ISO)
    expect(asset.updated).toMatch(ISO)
    expect(asset.createdDate).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    expect(await storedFiles(platform)).toEqual([asset.fileId])
  })

  it('uploads a FILE_IN_PATH asset of a service with platformVseId, folder, description and a file name of its own', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    const asset = await createAsset(platform, {
      type: 'file_in_path',
      platformVseId: '7',
      serviceId: String(serviceId),
      folderId: 'tools',
      filename: 'jq',
      description: 'a tool',
    })
    expect(asset).toMatchObject({
      type: 'FILE_IN_PATH',
      platformVseId: 7,
      serviceId,
      serviceName: 'pets',
      folderId: 'tools',
      name: 'jq',
      description: 'a tool',
    })
  })

  it('warns (201, severity WARN) when the name is already used in the service, and when a fileId is given', async () => {
    const platform = await startTestPlatform()
    const serviceId = String(await createService(platform))
    const first = await createAsset(platform, { type: 'MAR', serviceId })
    const second = await createAsset(platform, { type: 'MAR', serviceId, fileId: 'mine' })
    expect(second.errors).toEqual([
      {
        code: 'WARN_API_ASSET_FILE_ID_IGNORED',
        message: expect.any(String) as unknown,
        severity: 'WARN',
      },
      {
        code: 'WARN_API_ASSET_NAME_IN_USE',
        message: expect.stringContaining(`asset ${first.id}`) as unknown,
        severity: 'WARN',
      },
    ])
    expect(second.fileId).not.toBe('mine')
    const other = await createAsset(platform, { type: 'MAR' })
    expect(other.errors).toEqual([])
  })

  it('refuses malformed forms with 400 naming each failing field, leaving no file behind', async () => {
    const platform = await startTestPlatform()
    const cases: Array<[Record<string, string>, string]> = [
      [{}, '/type'],
      [{ type: 'JAR' }, '/type'],
      [{ type: 'FILE_IN_ROOT' }, '/platformVseId'],
      [{ type: 'FILE_IN_CLASSPATH', platformVseId: '0' }, '/platformVseId'],
      [{ type: 'MAR', platformVseId: 'x' }, '/platformVseId'],
      [{ type: 'MAR', serviceId: 'pets' }, '/serviceId'],
      [{ type: 'MAR', filename: 'x'.repeat(300) }, '/filename'],
    ]
    for (const [fields, path] of cases) {
      await expectError(await uploadAsset(platform, fields), 400, 'ERR_API_VALIDATION', path)
    }
    const noFile = await platform.request(assetsPath(platform), {
      method: 'POST',
      body: formOf({ type: 'MAR' }),
    })
    await expectError(noFile, 400, 'ERR_API_VALIDATION', '/file')
    const twoFiles = await platform.request(assetsPath(platform), {
      method: 'POST',
      body: formOf({ type: 'MAR' }, [
        { name: 'a', bytes: 'a' },
        { name: 'b', bytes: 'b' },
      ]),
    })
    await expectError(twoFiles, 400, 'ERR_API_VALIDATION', '/file')
    const all = await expectError(
      await uploadAsset(platform, { type: 'FILE_IN_ROOT', serviceId: 'x' }),
      400,
      'ERR_API_VALIDATION',
    )
    expect(all.error?.details?.map((d) => d.path).sort()).toEqual(['/platformVseId', '/serviceId'])
    expect(await storedFiles(platform)).toEqual([])
    expect((await envelope<unknown[]>(await platform.request(assetsPath(platform)))).total).toBe(0)
  })

  it('answers 404 for a service that does not exist or is of another workspace, leaving no file behind', async () => {
    const platform = await startTestPlatform()
    const second = await secondWorkspace(platform)
    const theirs = await createService(platform, 'theirs', second)
    await expectError(
      await uploadAsset(platform, { type: 'MAR', serviceId: '999' }),
      404,
      'ERR_API_NOT_FOUND',
      '/serviceId',
    )
    await expectError(
      await uploadAsset(platform, { type: 'MAR', serviceId: String(theirs) }),
      404,
      'ERR_API_NOT_FOUND',
      '/serviceId',
    )
    expect(await storedFiles(platform)).toEqual([])
  })

  it('deletes the stored file when the database write fails', async () => {
    const platform = await startTestPlatform()
    const store = platform.store as { write: typeof platform.store.write }
    const write = store.write.bind(platform.store)
    store.write = async () => {
      throw new Error('disk full')
    }
    try {
      await expectError(await uploadAsset(platform, { type: 'MAR' }), 500, 'ERR_INTERNAL')
    } finally {
      store.write = write
    }
    expect(await storedFiles(platform)).toEqual([])
  })

  it('refuses an upload past the upload limit with 413, and a JSON body with 415', async () => {
    const platform = await startTestPlatform({ uploadLimit: 1024 })
    await expectError(
      await uploadAsset(platform, { type: 'MAR' }, 'x'.repeat(4096)),
      413,
      'ERR_API_PAYLOAD_TOO_LARGE',
    )
    expect(await storedFiles(platform)).toEqual([])
    await expectError(
      await platform.request(assetsPath(platform), { method: 'POST', json: { type: 'MAR' } }),
      415,
      'ERR_API_UNSUPPORTED_MEDIA_TYPE',
    )
  })

  it('answers 404 for another account, 401 without credentials, 404 for an unknown workspace', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => assetsPath(platform, ws), {
      method: 'POST',
      body: formOf({ type: 'MAR' }, [{ name: 'a.mar', bytes: 'a' }]),
    })
    expect(await storedFiles(platform)).toEqual([])
  })
})

describe('/api/v1 assets: list, get, patch, delete, validate-name', () => {
  it('lists assets with total, filtered by serviceId, paged and sorted', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    await createAsset(platform, { type: 'MAR', serviceId: String(serviceId) }, 'a', 'b.mar')
    await createAsset(platform, { type: 'MAR', serviceId: String(serviceId) }, 'a', 'a.mar')
    await createAsset(platform, { type: 'MAR' }, 'a', 'c.mar')
    const all = await envelope<AssetBody[]>(
      await platform.request(`${assetsPath(platform)}?sort=name`),
    )
    expect(all).toMatchObject({ total: 3, limit: 50, skip: 0 })
    expect(all.result.map((a) => a.name)).toEqual(['a.mar', 'b.mar', 'c.mar'])
    expect(Object.keys(all.result[0] ?? {}).sort()).toEqual(assetKeys)
    const ofService = await envelope<AssetBody[]>(
      await platform.request(
        `${assetsPath(platform)}?serviceId=${serviceId}&limit=1&skip=1&sort=-name`,
      ),
    )
    expect(ofService).toMatchObject({ total: 2, limit: 1, skip: 1 })
    expect(ofService.result.map((a) => [a.name, a.serviceName])).toEqual([['a.mar', 'pets']])
    await expectError(
      await platform.request(`${assetsPath(platform)}?serviceId=x`),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await platform.request(`${assetsPath(platform)}?sort=fileId`),
      400,
      'ERR_API_VALIDATION',
      '/sort',
    )
  })

  it('gets an asset with 200, and 404 for unknown ids and for an asset of another workspace', async () => {
    const platform = await startTestPlatform()
    const asset = await createAsset(platform)
    const res = await platform.request(`${assetsPath(platform)}/${asset.id}`)
    expect(res.status).toBe(200)
    const { errors: _errors, ...expected } = asset
    expect((await envelope<AssetBody>(res)).result).toEqual(expected)
    const second = await secondWorkspace(platform)
    const theirs = await platform.request(assetsPath(platform, second), {
      method: 'POST',
      body: formOf({ type: 'MAR' }, [{ name: 'x.mar', bytes: 'x' }]),
    })
    const theirId = (await envelope<AssetBody>(theirs)).result.id
    for (const id of [9999, theirId]) {
      await expectError(
        await platform.request(`${assetsPath(platform)}/${id}`),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${assetsPath(platform)}/${id}`, {
          method: 'PATCH',
          json: { description: 'x' },
        }),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${assetsPath(platform)}/${id}`, { method: 'DELETE' }),
        404,
        'ERR_API_NOT_FOUND',
      )
      await expectError(
        await platform.request(`${assetsPath(platform)}/${id}/download`),
        404,
        'ERR_API_NOT_FOUND',
      )
    }
    await expectError(
      await platform.request(`${assetsPath(platform)}/abc`),
      400,
      'ERR_API_VALIDATION',
      '/assetId',
    )
  })

  it('patches description, metadata, service and tags with 200, creating the tags', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform, 'pets')
    const asset = await createAsset(platform)
    const res = await platform.request(`${assetsPath(platform)}/${asset.id}`, {
      method: 'PATCH',
      json: {
        description: 'Pet MAR',
        primaryMetadata: { version: '1.2' },
        secondaryMetadata: { owner: 'ada' },
        serviceId,
        tags: ['prod', ' mar '],
      },
    })
    expect(res.status).toBe(200)
    const patched = (await envelope<AssetBody>(res)).result
    expect(patched).toMatchObject({
      id: asset.id,
      name: 'pets.mar',
      description: 'Pet MAR',
      primaryMetadata: { version: '1.2' },
      secondaryMetadata: { owner: 'ada' },
      serviceId,
      serviceName: 'pets',
      tags: ['prod', 'mar'],
      fileId: asset.fileId,
    })
    expect(patched.errors).toBeUndefined()
    const tags = (
      await envelope<Array<{ name: string }>>(await platform.request('/api/v1/tags?sort=name'))
    ).result.map((t) => t.name)
    expect(tags).toEqual(['mar', 'prod'])
    const detached = await platform.request(`${assetsPath(platform)}/${asset.id}`, {
      method: 'PATCH',
      json: { serviceId: null },
    })
    expect((await envelope<AssetBody>(detached)).result).toMatchObject({
      serviceId: null,
      serviceName: null,
      description: 'Pet MAR',
    })
  })

  it('refuses malformed patches with 400 naming the field, and an unknown service with 404, changing nothing', async () => {
    const platform = await startTestPlatform()
    const asset = await createAsset(platform)
    const patch = (json: unknown) =>
      platform.request(`${assetsPath(platform)}/${asset.id}`, { method: 'PATCH', json })
    await expectError(await patch({ description: 5 }), 400, 'ERR_API_VALIDATION', '/description')
    await expectError(
      await patch({ primaryMetadata: 'x' }),
      400,
      'ERR_API_VALIDATION',
      '/primaryMetadata',
    )
    await expectError(
      await patch({ secondaryMetadata: [] }),
      400,
      'ERR_API_VALIDATION',
      '/secondaryMetadata',
    )
    await expectError(await patch({ serviceId: 'x' }), 400, 'ERR_API_VALIDATION', '/serviceId')
    await expectError(await patch({ tags: [1] }), 400, 'ERR_API_VALIDATION', '/tags/0')
    await expectError(await patch({ tags: ['ok', ''] }), 400, 'ERR_API_VALIDATION', '/tags/1')
    await expectError(
      await patch({ serviceId: 999, description: 'changed' }),
      404,
      'ERR_API_NOT_FOUND',
      '/serviceId',
    )
    await expectError(await patch('x'), 400, 'ERR_API_VALIDATION')
    const text = await platform.request(`${assetsPath(platform)}/${asset.id}`, {
      method: 'PATCH',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    })
    await expectError(text, 415, 'ERR_API_UNSUPPORTED_MEDIA_TYPE')
    expect(
      (await envelope<AssetBody>(await platform.request(`${assetsPath(platform)}/${asset.id}`)))
        .result.description,
    ).toBe('')
  })

  it('deletes an asset and its file with the {body, statusCode, statusCodeValue} body', async () => {
    const platform = await startTestPlatform()
    const asset = await createAsset(platform)
    const res = await platform.request(`${assetsPath(platform)}/${asset.id}`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ body: null, statusCode: 'OK', statusCodeValue: 200 })
    expect(await storedFiles(platform)).toEqual([])
    await expectError(
      await platform.request(`${assetsPath(platform)}/${asset.id}`),
      404,
      'ERR_API_NOT_FOUND',
    )
  })

  it('refuses with 409 to delete an asset a mock service is built from, keeping it and its file', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const asset = await createAsset(platform, { type: 'MAR', serviceId: String(serviceId) })
    await insertMockService(platform, serviceId, asset.id)
    await expectError(
      await platform.request(`${assetsPath(platform)}/${asset.id}`, { method: 'DELETE' }),
      409,
      'ERR_API_CONFLICT',
    )
    expect((await platform.request(`${assetsPath(platform)}/${asset.id}`)).status).toBe(200)
    expect(await storedFiles(platform)).toEqual([asset.fileId])
  })

  it('validates names per service: true when free, false when taken, true again when the taken one is ignored', async () => {
    const platform = await startTestPlatform()
    const serviceId = await createService(platform)
    const other = await createService(platform, 'other')
    const asset = await createAsset(platform, { type: 'MAR', serviceId: String(serviceId) })
    const check = async (json: unknown) => {
      const res = await platform.request(`${assetsPath(platform)}/validate-name`, {
        method: 'POST',
        json,
      })
      expect(res.status).toBe(200)
      return (await envelope<boolean>(res)).result
    }
    expect(await check({ name: 'pets.mar', serviceId })).toBe(false)
    expect(await check({ name: 'pets.mar', serviceId, idToIgnore: asset.id })).toBe(true)
    expect(await check({ name: 'pets.mar', serviceId: other, idToIgnore: 0 })).toBe(true)
    expect(await check({ name: 'other.mar', serviceId })).toBe(true)
    expect(await check({ name: 'pets.mar' })).toBe(true)
    const post = (json: unknown) =>
      platform.request(`${assetsPath(platform)}/validate-name`, { method: 'POST', json })
    await expectError(await post({ serviceId }), 400, 'ERR_API_VALIDATION', '/name')
    await expectError(
      await post({ name: 'x', serviceId: 'x' }),
      400,
      'ERR_API_VALIDATION',
      '/serviceId',
    )
    await expectError(
      await post({ name: 'x', idToIgnore: -1 }),
      400,
      'ERR_API_VALIDATION',
      '/idToIgnore',
    )
  })

  it('answers 404 for another account and 401 without credentials on every asset path', async () => {
    const platform = await startTestPlatform()
    await expectScoped(platform, (ws) => assetsPath(platform, ws))
    await expectScoped(platform, (ws) => `${assetsPath(platform, ws)}/1`)
    await expectScoped(platform, (ws) => `${assetsPath(platform, ws)}/1/download`)
    await expectScoped(platform, (ws) => `${assetsPath(platform, ws)}/validate-name`, {
      method: 'POST',
      json: { name: 'x' },
    })
  })
})

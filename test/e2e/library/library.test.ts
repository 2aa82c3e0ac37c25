import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createMockServer } from '../../../src/index.js'
import { tempDir } from '../../helpers/temp-dir.js'

const pets = [
  {
    name: 'list pets',
    dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [{ id: 1 }] } },
  },
  {
    name: 'adopt',
    dsl: {
      requestDsl: { method: 'POST', path: '/adoptions' },
      responseDsl: { status: 201, json: { ok: true } },
    },
  },
]

describe('createMockServer', () => {
  it('serves transactions on a free port, records and verifies requests, reloads and closes', async () => {
    const mock = await createMockServer({ transactions: pets })
    onTestFinished(() => mock.close())
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${mock.url}/pets`)).status).toBe(200)
    expect((await fetch(`${mock.url}/adoptions`, { method: 'POST', body: '{}' })).status).toBe(201)
    expect((await fetch(`${mock.url}/adoptions`, { method: 'POST', body: '{}' })).status).toBe(201)
    expect((await fetch(`${mock.url}/petz`)).status).toBe(404)

    expect(mock.inspection.count()).toBe(4)
    expect(mock.inspection.count({ method: 'POST', path: '/adoptions' })).toBe(2)
    expect(mock.inspection.list({ status: '2xx' }).map((e) => e.url)).toEqual([
      '/adoptions',
      '/adoptions',
      '/pets',
    ])
    const unmatched = mock.inspection.unmatched()
    expect(unmatched.map((e) => e.url)).toEqual(['/petz'])
    expect(unmatched[0]?.diagnosis).not.toBeNull()

    expect(
      mock.inspection.verify({ request: { method: 'POST', path: '/adoptions' }, count: 2 })
        .verified,
    ).toBe(true)
    expect(() =>
      mock.inspection.assert({ request: { method: 'POST', path: '/adoptions' }, count: 1 }),
    ).toThrow(/expected exactly 1 request\(s\) matching .* received 2/)
    mock.inspection.clear()
    expect(mock.inspection.count()).toBe(0)

    const transactions = await mock.reload({
      transactions: [{ dsl: { requestDsl: { path: '/only' }, responseDsl: { text: 'x' } } }],
    })
    expect(transactions).toBe(1)
    expect((await fetch(`${mock.url}/pets`)).status).toBe(404)
    expect(await (await fetch(`${mock.url}/only`)).text()).toBe('x')
    await mock.close()
    await expect(fetch(`${mock.url}/only`)).rejects.toThrow()
  })

  it('reads, sets and resets scenario states', async () => {
    const mock = await createMockServer({
      transactions: [
        {
          name: 'pay',
          dsl: {
            requestDsl: { method: 'POST', path: '/pay' },
            scenario: { name: 'order', requiredState: 'Started', newState: 'Paid' },
            responseDsl: { status: 201 },
          },
        },
        {
          name: 'again',
          dsl: {
            priority: 20,
            requestDsl: { method: 'POST', path: '/pay' },
            responseDsl: { status: 409 },
          },
        },
      ],
    })
    onTestFinished(() => mock.close())
    expect((await fetch(`${mock.url}/pay`, { method: 'POST' })).status).toBe(201)
    expect(mock.scenarios.list()).toEqual([{ name: 'order', instance: null, state: 'Paid' }])
    expect((await fetch(`${mock.url}/pay`, { method: 'POST' })).status).toBe(409)
    expect(mock.scenarios.reset()).toBe(1)
    expect((await fetch(`${mock.url}/pay`, { method: 'POST' })).status).toBe(201)
    mock.scenarios.set('order', 'Started')
    expect((await fetch(`${mock.url}/pay`, { method: 'POST' })).status).toBe(201)
  })

  it('serves files in any format that serve reads, and re-reads them on reload', async () => {
    const dir = tempDir()
    const file = join(dir, 'pets.yaml')
    writeFileSync(file, '- dsl: { requestDsl: { path: /a }, responseDsl: { text: one } }\n')
    const mock = await createMockServer({ files: dir })
    onTestFinished(() => mock.close())
    expect(await (await fetch(`${mock.url}/a`)).text()).toBe('one')
    writeFileSync(file, '- dsl: { requestDsl: { path: /a }, responseDsl: { text: two } }\n')
    await mock.reload()
    expect(await (await fetch(`${mock.url}/a`)).text()).toBe('two')
    writeFileSync(file, '- dsl: { requestDsl: { path: 3 } }\n')
    await expect(mock.reload()).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
    expect(await (await fetch(`${mock.url}/a`)).text()).toBe('two')
  })

  it('serves a whole mock-service document with an admin API', async () => {
    const mock = await createMockServer({
      mock: { noMatchingRequestPreference: 'return404', transactions: pets },
      adminPort: 0,
    })
    onTestFinished(() => mock.close())
    expect(mock.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const health = await fetch(`${mock.adminUrl ?? ''}/health`)
    expect(health.status).toBe(200)
  })

  it('refuses a missing source and a bad transaction clearly', async () => {
    await expect(createMockServer({} as never)).rejects.toThrow(
      /needs one of files, transactions or mock/,
    )
    await expect(
      createMockServer({ transactions: [{ dsl: { requestDsl: { method: 3 } } }] as never }),
    ).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
  })
})

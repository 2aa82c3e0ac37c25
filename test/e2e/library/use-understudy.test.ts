import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { useUnderstudy } from '../../../src/index.js'

// The test helper as a user's test file would use it: one mock for the file, on a free port,
// with the requests forgotten before each test.
const mock = useUnderstudy({
  transactions: [
    {
      name: 'hello',
      dsl: { requestDsl: { method: 'GET', path: '/hello' }, responseDsl: { text: 'hi' } },
    },
  ],
  hooks: { beforeAll, afterAll, beforeEach },
})

describe('useUnderstudy', () => {
  it('has a running mock in the first test', async () => {
    expect(await (await fetch(`${mock.url}/hello`)).text()).toBe('hi')
    mock.inspection.assert({ request: { method: 'GET', path: '/hello', matched: true }, count: 1 })
  })

  it('starts each test with no recorded request', async () => {
    expect(mock.inspection.count()).toBe(0)
    await fetch(`${mock.url}/nope`)
    expect(mock.inspection.unmatched().map((e) => e.url)).toEqual(['/nope'])
  })

  it('refuses to be used without the framework hooks', () => {
    expect(() => useUnderstudy({ transactions: [] })).toThrow(/needs the test framework's hooks/)
  })
})

import { createMockServer, type MockServer, type MockServerOptions } from './mock-server.js'

type Hook = (fn: () => unknown, timeout?: number) => void

/** The test framework's lifecycle hooks: vitest's and jest's have these names. */
export interface TestHooks {
  beforeAll: Hook
  afterAll: Hook
  beforeEach?: Hook
}

export type UseUnderstudyOptions = MockServerOptions & {
  /**
   * The framework's hooks. Default: the global ones (jest, or vitest with `globals: true`); with
   * vitest without globals, pass `{ beforeAll, afterAll, beforeEach }` imported from 'vitest'.
   */
  hooks?: TestHooks
  /** Forget recorded requests before each test (default true). */
  resetBetweenTests?: boolean
}

/**
 * Starts a mock server for the tests of one file (on a free port, before all of them) and stops
 * it after them; the recorded requests are forgotten before each test. Read `url`, `inspection`
 * and the rest from the returned handle inside tests (they exist once `beforeAll` ran).
 *
 * @example
 * import { beforeAll, afterAll, beforeEach, it, expect } from 'vitest'
 * const mock = useUnderstudy({ files: 'mocks/', hooks: { beforeAll, afterAll, beforeEach } })
 * it('lists pets', async () => {
 *   await fetch(`${mock.url}/pets`)
 *   mock.inspection.assert({ request: { method: 'GET', path: '/pets' }, count: 1 })
 * })
 */
export function useUnderstudy(options: UseUnderstudyOptions): MockServer {
  const hooks = options.hooks ?? globalHooks()
  let server: MockServer | null = null
  const current = (): MockServer => {
    if (server === null) {
      throw new Error(
        'the Understudy mock is not started yet: use it inside a test or a hook that runs after beforeAll',
      )
    }
    return server
  }
  hooks.beforeAll(async () => {
    server = await createMockServer(options)
  }, 30_000)
  hooks.afterAll(async () => {
    await server?.close()
    server = null
  }, 30_000)
  if (options.resetBetweenTests !== false && hooks.beforeEach !== undefined) {
    hooks.beforeEach(() => {
      server?.inspection.clear()
    })
  }
  return {
    get url() {
      return current().url
    },
    get urls() {
      return current().urls
    },
    get adminUrl() {
      return current().adminUrl
    },
    get inspection() {
      return current().inspection
    },
    get scenarios() {
      return current().scenarios
    },
    get runtime() {
      return current().runtime
    },
    reload: async (source) => current().reload(source),
    close: async () => current().close(),
  }
}

function globalHooks(): TestHooks {
  const g = globalThis as unknown as Partial<TestHooks>
  if (typeof g.beforeAll !== 'function' || typeof g.afterAll !== 'function') {
    throw new Error(
      "useUnderstudy needs the test framework's hooks: pass { hooks: { beforeAll, afterAll, beforeEach } } (imported from 'vitest'), or enable globals",
    )
  }
  const hooks: TestHooks = { beforeAll: g.beforeAll, afterAll: g.afterAll }
  if (typeof g.beforeEach === 'function') hooks.beforeEach = g.beforeEach
  return hooks
}

import { describe, expect, it, onTestFinished } from 'vitest'
import { loadRuntimeOptions, type RuntimeOptions } from '../../../src/config/index.js'
import { readDefinition } from '../../../src/dsl/index.js'
import { createSilentLogger } from '../../../src/log/index.js'
import { startRuntime, type Runtime } from '../../../src/serve/index.js'

/** A document of `count` transactions on paths /t0, /t1, ... */
function documentOf(count: number): ReturnType<typeof readDefinition> {
  return readDefinition(
    Array.from({ length: count }, (_, i) => ({
      dsl: { requestDsl: { path: `/t${i}` }, responseDsl: { text: `t${i}` } },
    })),
  )
}

/** A runtime of one transaction that notes the transactions of each swap it reports, closed after the test. */
async function runtimeNotingSwaps(): Promise<{ runtime: Runtime; swapped: number[] }> {
  const swapped: number[] = []
  const runtime = await startRuntime({
    document: documentOf(1),
    options: loadRuntimeOptions({
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
    } as Partial<RuntimeOptions>),
    log: createSilentLogger(),
    onSwap: (transactions) => swapped.push(transactions),
  })
  onTestFinished(async () => await runtime.close())
  return { runtime, swapped }
}

// The runtime tells its starter about every swap of its configuration, whichever way it came, so
// that the command line can give back on timers what a large swap grew (src/cli/young-generation.ts).
describe('startRuntime onSwap', () => {
  it('reports every swap with the transactions compiled, and not the first compile', async () => {
    const { runtime, swapped } = await runtimeNotingSwaps()
    expect(swapped).toEqual([])

    runtime.reload(documentOf(2))
    await runtime.reloadSliced(documentOf(3))
    // The WireMock admin API layers its stubs this way: the compiled whole is what counts.
    runtime.setDocumentLayer((base) => ({
      ...base,
      transactions: [...base.transactions, ...documentOf(4).transactions],
    }))
    expect(swapped).toEqual([2, 3, 7])
    expect(await (await fetch(`${runtime.urls.http}/t3`)).text()).toBe('t3')
  })

  it('reports nothing when a swap is refused', async () => {
    const { runtime, swapped } = await runtimeNotingSwaps()
    // Node refuses a line break in a reason phrase: the compile throws ERR_DSL_INVALID.
    const invalid = readDefinition([
      { dsl: { requestDsl: { path: '/bad' }, responseDsl: { statusMessage: 'Fine\nHTTP/1.1' } } },
    ])
    expect(() => runtime.reload(invalid)).toThrow(
      expect.objectContaining({ code: 'ERR_DSL_INVALID' }),
    )
    await expect(runtime.reloadSliced(invalid)).rejects.toMatchObject({ code: 'ERR_DSL_INVALID' })
    expect(swapped).toEqual([])
  })
})

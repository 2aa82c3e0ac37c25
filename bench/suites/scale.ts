import type { TransactionInput } from '../../src/dsl/index.js'
import type { Scenario } from '../scenarios/index.js'

/** The sizes the `scale` suite serves each scenario at. */
export const scaleSizes = [100, 10_000, 100_000] as const

/**
 * The scenario's document grown to `size` transactions with others the request never matches:
 * 90 % literal paths, 9 % `{id}` templates, 1 % JSON-body POSTs on their own paths (a mix like
 * an imported OpenAPI description or HAR). The scenario's own transactions stay the newest.
 */
export function grown(scenario: Scenario, size: number): TransactionInput[] {
  const own = (scenario.document.transactions ?? []) as TransactionInput[]
  const fillers: TransactionInput[] = []
  for (let i = 0; fillers.length + own.length < size; i++) {
    const kind = i % 100
    if (kind < 90) {
      fillers.push({
        name: `filler-${i}`,
        dsl: {
          requestDsl: { method: 'GET', path: `/filler/r${i}/items` },
          responseDsl: { json: { id: i, name: `item ${i}` } },
        },
      })
    } else if (kind < 99) {
      fillers.push({
        name: `filler-${i}`,
        dsl: {
          requestDsl: { method: 'GET', path: `/filler/t${i}/items/{id}` },
          responseDsl: { json: { template: i } },
        },
      })
    } else {
      fillers.push({
        name: `filler-${i}`,
        dsl: {
          requestDsl: {
            method: 'POST',
            path: `/filler/p${i}`,
            body: [{ key: '$.kind', matcherName: 'equals', matchingValue: `k${i}` }],
          },
          responseDsl: { status: 201, json: { created: i } },
        },
      })
    }
  }
  return [...fillers, ...own]
}

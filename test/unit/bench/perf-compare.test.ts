import { describe, expect, it } from 'vitest'
import { differences, readTable } from '../../../bench/perf-compare.js'

describe('perf-compare', () => {
  it('reads a perf-sample table, summing names that appear twice and skipping other lines', () => {
    const table = readTable('2.500 JS:*flush exchange.js\n0.250 node\n\nnot a row\n1.000 node\n')
    expect([...table]).toEqual([
      ['JS:*flush exchange.js', 2.5],
      ['node', 1.25],
    ])
  })

  it('orders names by how much more the second run spends on them, absent ones as zero', () => {
    const a = new Map([
      ['shared', 1],
      ['only in a', 2],
    ])
    const b = new Map([
      ['shared', 1.5],
      ['only in b', 3],
    ])
    expect(differences(a, b)).toEqual([
      { name: 'only in b', a: 0, b: 3, change: 3 },
      { name: 'shared', a: 1, b: 1.5, change: 0.5 },
      { name: 'only in a', a: 2, b: 0, change: -2 },
    ])
  })
})

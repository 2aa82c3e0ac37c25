import { describe, expect, it } from 'vitest'
import { finishImport, importFile, importPending, type FinishInput } from '../../../importers/index.js'
import { LAYOUT_MIN_BYTES } from '../../../importers/shared/har-layout.js'
import { packDraftsInRuns, packPendingInRuns, readDrafts, type PackedDrafts } from '../../../src/api/v1/import-drafts.js'
import type { TransactionInput } from '../../../src/dsl/index.js'
import { isUnderstudyError } from '../../../src/errors/index.js'
import { generatedHar } from '../../helpers/generated-har.js'

/*
 * A large HAR upload is validated a run at a time while the first runs are stored (issue 8):
 * the runs, and the errors, must be those of validating the whole list first.
 */

function runsOf (pack: (emit: (run: PackedDrafts) => void) => void): Array<{ count: number; tags: string[]; drafts: unknown[] }> {
  const runs: Array<{ count: number; tags: string[]; drafts: unknown[] }> = []
  pack((run) => runs.push({ count: run.count, tags: run.tags, drafts: [...readDrafts(run.packed, run.count)].map((d) => ({ ...d, tagsJson: d.tagsJson.toString(), dslJson: d.dslJson.toString() })) }))
  return runs
}

function errorOf (run: () => unknown): unknown {
  try {
    run()
  } catch (err) {
    if (isUnderstudyError(err)) return { code: err.code, message: err.message, details: err.details }
    throw err
  }
  return null
}

function transaction (i: number, over: Partial<TransactionInput['dsl']['requestDsl']> = {}): TransactionInput {
  return { name: `GET /t/${i}`, description: null, tags: i % 2 === 0 ? ['even'] : [], dsl: { requestDsl: { method: 'GET', path: `/t/${i}`, ...over }, responseDsl: { status: 200, text: `t${i}` } } }
}

function pending (transactions: TransactionInput[]): FinishInput {
  return { format: 'har', dslType: 'HAR_DSL', fileName: 'big.har', transactions, warnings: [] }
}

describe('importPending', () => {
  it('keeps a large HAR before validation, and the validated import equals importFile\'s', () => {
    const bytes = Buffer.from(generatedHar(2000))
    expect(bytes.length).toBeGreaterThan(LAYOUT_MIN_BYTES)
    const imported = importPending({ bytes, fileName: 'big.har' })
    if (!('pending' in imported)) throw new Error('a large HAR should be pending')
    expect(imported.pending.transactions).toHaveLength(2000)
    expect(JSON.stringify(finishImport(imported.pending))).toBe(JSON.stringify(importFile({ bytes, fileName: 'big.har' })))
  })

  it('imports anything else as importFile does', () => {
    const bytes = Buffer.from(generatedHar(10))
    expect(importPending({ bytes, fileName: 'small.har' })).toEqual({ result: importFile({ bytes, fileName: 'small.har' }) })
  })
})

describe('packPendingInRuns', () => {
  it('emits the runs that validating first and then packing emits', () => {
    const make = (): TransactionInput[] => Array.from({ length: 25 }, (_, i) => transaction(i))
    const expected = runsOf((emit) => packDraftsInRuns('big.har', finishImport(pending(make())), 10, emit))
    expect(runsOf((emit) => packPendingInRuns('big.har', pending(make()), 10, emit))).toEqual(expected)
    expect(expected.map((r) => r.count)).toEqual([10, 10, 5])
    expect(expected[0]?.tags).toEqual(['even'])
  })

  it('throws the error of validating the whole list, every invalid transaction named by its place', () => {
    const make = (): TransactionInput[] => Array.from({ length: 25 }, (_, i) => i === 3 || i === 22 ? transaction(i, { method: 5 as unknown as string }) : transaction(i))
    const expected = errorOf(() => finishImport(pending(make())))
    expect(expected).toMatchObject({ code: 'ERR_IMPORT_INVALID' })
    expect(JSON.stringify(expected)).toContain('/transactions/22/')
    expect(errorOf(() => packPendingInRuns('big.har', pending(make()), 10, () => {}))).toEqual(expected)
  })

  it('throws the usual compile error, naming the file and place, for a matcher that could never be served', () => {
    const bad = { url: { key: 'url', matcherName: 'matches_url' as const, matchingValue: '(unclosed' } }
    const make = (): TransactionInput[] => Array.from({ length: 25 }, (_, i) => i === 21 ? transaction(i, bad) : transaction(i))
    const expected = errorOf(() => packDraftsInRuns('big.har', finishImport(pending(make())), 10, () => {}))
    expect(expected).toMatchObject({ code: 'ERR_DSL_INVALID' })
    expect(JSON.stringify(expected)).toContain('/transactions/21/')
    const emitted: number[] = []
    expect(errorOf(() => packPendingInRuns('big.har', pending(make()), 10, (run) => emitted.push(run.count)))).toEqual(expected)
    // the runs before the bad one were emitted (the writer discards them when the packer fails)
    expect(emitted).toEqual([10, 10])
  })
})

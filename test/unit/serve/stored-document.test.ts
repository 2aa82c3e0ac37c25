import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadRunDocument } from '../../../src/cli/run-document.js'
import { rereadDocument, rereadDocumentSliced, sourceTextOf } from '../../../src/dsl/index.js'
import { storedDocument } from '../../../src/serve/stored-document.js'

const examples = resolve(import.meta.dirname, '../../../examples')

describe('a document kept as its source text', () => {
  it.each(['pets.yaml', 'payments-api.yaml', 'dynamic-orders.yaml'])(
    'reads %s again into an equal document',
    async (name) => {
      const doc = await loadRunDocument(join(examples, name))
      const source = sourceTextOf(doc)
      expect(source).toBeDefined()
      const again = rereadDocument(source as NonNullable<typeof source>)
      expect(again).not.toBe(doc)
      expect(again).toEqual(doc)
    },
  )

  it('reads a JSON document again with its settings and every transaction', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stored-document-'))
    const file = join(dir, 'mock.json')
    writeFileSync(
      file,
      JSON.stringify({
        name: 'orders',
        thinkTime: 5,
        transactions: Array.from({ length: 50 }, (_, i) => ({
          name: `t${i}`,
          dsl: {
            requestDsl: { method: 'GET', path: `/orders/${i}` },
            responseDsl: { json: { i }, headers: [{ name: 'X-I', value: String(i) }] },
          },
        })),
      }),
    )
    const doc = await loadRunDocument(file)
    const stored = storedDocument(doc)
    expect(stored.now()).toBe(doc)
    expect(await stored.later()).toBe(doc)
    const again = rereadDocument(sourceTextOf(doc) as NonNullable<ReturnType<typeof sourceTextOf>>)
    expect(again).toEqual(doc)
    expect(again.transactions).toHaveLength(50)
  })

  it('reads a JSON text again in time slices into the same document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stored-document-'))
    const file = join(dir, 'list.json')
    writeFileSync(
      file,
      JSON.stringify(
        Array.from({ length: 40 }, (_, i) => ({
          dsl: { requestDsl: { path: `/p/{id}/${i}` }, responseDsl: { text: `t${i}` } },
        })),
      ),
    )
    const doc = await loadRunDocument(file)
    const source = sourceTextOf(doc) as NonNullable<ReturnType<typeof sourceTextOf>>
    const again = await rereadDocumentSliced(source, async () => {})
    expect(again).toEqual(doc)
  })

  it('keeps a document without a source text as it is', async () => {
    const doc = { transactions: [] } as unknown as Parameters<typeof storedDocument>[0]
    expect(storedDocument(doc).now()).toBe(doc)
    expect(await storedDocument(doc).later()).toBe(doc)
  })
})

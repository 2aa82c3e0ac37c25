import { describe, expect, it, onTestFinished } from 'vitest'
import {
  finishImport,
  importFile,
  importStreamed,
  type FinishInput,
} from '../../../importers/index.js'
import { LAYOUT_MIN_BYTES } from '../../../importers/shared/har-layout.js'
import { UploadWorkers, uploadInWorkers } from '../../../src/api/v1/upload/off-thread.js'
import { runImportJob } from '../../../src/api/v1/upload/jobs.js'
import { packDraftsInRuns, type PackedDrafts } from '../../../src/api/v1/upload/drafts.js'
import { packRawRun, rawRunOf } from '../../../src/api/v1/upload/raw-runs.js'
import { storeUploaded, UploadStorer, type UploadTarget } from '../../../src/api/v1/upload/store.js'
import { RUN_LENGTH, streamFile, type RunMessage } from '../../../src/api/v1/upload/stream.js'
import type { TransactionInput } from '../../../src/dsl/index.js'
import type { Store } from '../../../src/store/index.js'
import { generatedHar } from '../../helpers/generated-har.js'
import { ALL, BY, openTestStore, seed } from '../store/fixtures.js'

/*
 * A large HAR upload is stored while the file is still read: the importer thread sends
 * each transaction as it is made, the writer thread validates and inserts it, and at the end of
 * the file the rows are put in the order the import gives them. What is stored and answered
 * must be exactly what importing the whole file first and then storing it gives.
 */

async function world(): Promise<{ store: Store; target: UploadTarget }> {
  const { store } = await openTestStore()
  const w = await seed(store)
  return {
    store,
    target: {
      accountId: w.account.id,
      workspaceId: w.workspace.id,
      serviceId: w.service.id,
      serviceName: w.service.name,
      by: BY,
    },
  }
}

/** What a store holds of a workspace's transactions, in id order, without the audit times. */
async function rowsOf(store: Store, workspaceId: number): Promise<unknown[]> {
  const page = await store.transactions.list(workspaceId, {}, { ...ALL, limit: 100_000 })
  return page.items
    .sort((a, b) => a.id - b.id)
    .map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      tags: t.tags,
      dslType: t.dslType,
      dsl: t.dsl,
    }))
}

const entry = (url: string, text: string) => ({
  startedDateTime: '2024-01-01T00:00:00.000Z',
  time: 1,
  request: {
    method: 'GET',
    url,
    httpVersion: 'HTTP/1.1',
    headers: [],
    queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
    cookies: [],
    headersSize: -1,
    bodySize: 0,
  },
  response: {
    status: 200,
    statusText: 'OK',
    httpVersion: 'HTTP/1.1',
    headers: [],
    cookies: [],
    content: { size: text.length, mimeType: 'text/plain', text },
    redirectURL: '',
    headersSize: -1,
    bodySize: text.length,
  },
  cache: {},
  timings: { send: 0, wait: 1, receive: 0 },
})

/**
 * A HAR read an entry at a time (over LAYOUT_MIN_BYTES) whose import reorders transactions (a
 * request with a query recorded before the same request without, in two groups), names repeats
 * `#2` and drops a repeated request.
 */
function reorderingHar(): Buffer {
  const doc = JSON.parse(generatedHar(2600)) as { log: { entries: unknown[] } }
  const early = [
    entry('https://api.example.com/search?q=1', 'q1'),
    entry('https://api.example.com/search?q=2&p=1', 'q2p1'),
    entry('https://api.example.com/other?x=1', 'x1'),
  ]
  const late = [
    entry('https://api.example.com/search', 'plain'),
    entry('https://api.example.com/search?q=1', 'repeat'),
    entry('https://api.example.com/other', 'other'),
  ]
  doc.log.entries.splice(5, 0, ...early)
  doc.log.entries.push(...late)
  const bytes = Buffer.from(JSON.stringify(doc))
  expect(bytes.length).toBeGreaterThan(LAYOUT_MIN_BYTES)
  return bytes
}

describe('importStreamed', () => {
  it("hands on a large HAR's transactions as they are made, named, with the order that importFile gives", () => {
    const bytes = reorderingHar()
    const got: TransactionInput[] = []
    const imported = importStreamed(
      { bytes, fileName: 'big.har' },
      {},
      {
        add: (t) => got.push(t),
        drop: () => {
          throw new Error('nothing to drop')
        },
      },
    )
    if (!('streamed' in imported)) throw new Error('a large HAR should be streamed')
    const { count, order, warnings } = imported.streamed
    expect(count).toBe(got.length)
    expect(order).not.toBeNull()
    const whole = importFile({ bytes, fileName: 'big.har' })
    expect((order ?? []).map((i) => got[i]?.name)).toEqual(
      whole.document.transactions.map((t) => t.name),
    )
    expect(warnings).toEqual(whole.warnings)
  })

  it('tells the sink to drop what it got when the file must be read whole, then answers as importFile', () => {
    const doc = JSON.parse(reorderingHar().toString()) as {
      log: { entries: Array<{ request: Record<string, unknown> }> }
    }
    const last = doc.log.entries.at(-1)
    if (last !== undefined) delete last.request['method']
    const bytes = Buffer.from(JSON.stringify(doc))
    let added = 0
    let dropped = 0
    const sink = {
      add: () => {
        added++
      },
      drop: () => {
        dropped++
      },
    }
    expect(() => importStreamed({ bytes, fileName: 'big.har' }, {}, sink)).toThrow(
      expect.objectContaining({ code: 'ERR_IMPORT_INVALID' }),
    )
    expect(added).toBeGreaterThan(2000)
    expect(dropped).toBe(1)
  })

  it('imports anything else as importFile does, handing nothing on', () => {
    const bytes = Buffer.from(generatedHar(10))
    expect(
      importStreamed(
        { bytes, fileName: 'small.har' },
        {},
        {
          add: () => {
            throw new Error('no')
          },
          drop: () => {},
        },
      ),
    ).toEqual({ result: importFile({ bytes, fileName: 'small.har' }) })
  })
})

describe('a large HAR upload stored while it is read', () => {
  it(
    'stores and answers exactly what importing the whole file first gives, reordered rows included',
    { timeout: 60_000 },
    async () => {
      const bytes = reorderingHar()
      const streamed = await world()
      const workers = new UploadWorkers()
      onTestFinished(() => workers.close())
      const out = await uploadInWorkers(
        workers,
        streamed.store,
        [{ bytes: Buffer.from(bytes), fileName: 'big.har' }],
        {},
        streamed.target,
      )

      const inline = await world()
      const imported = runImportJob('store', { bytes, fileName: 'big.har' }, {})
      const answer = await inline.store.write(
        async (tx) => await storeUploaded(tx, [imported], inline.target),
      )

      expect(Buffer.concat(out.resultJson).toString()).toBe(Buffer.concat(answer).toString())
      expect(out.files).toEqual([
        { file: 'big.har', count: imported.count, warnings: imported.warnings },
      ])
      const rows = await rowsOf(streamed.store, streamed.target.workspaceId)
      expect(rows).toEqual(await rowsOf(inline.store, inline.target.workspaceId))
      // the plain request was recorded after the ones with a query, and is stored before them
      const names = rows.map((r) => (r as { name: string }).name)
      expect(names.indexOf('GET /search #3')).toBeLessThan(names.indexOf('GET /search'))
      expect(names.indexOf('GET /other #2')).toBeLessThan(names.indexOf('GET /other'))
      expect(imported.warnings.some((w) => w.message.includes('was recorded 2 times'))).toBe(true)
    },
  )

  it('keeps the files of a form in order around a streamed HAR', { timeout: 60_000 }, async () => {
    const bytes = reorderingHar()
    const small = Buffer.from(JSON.stringify({ transactions: ['before', 'after'].map(txn) }))
    const streamed = await world()
    const workers = new UploadWorkers()
    onTestFinished(() => workers.close())
    const inputs = [
      { bytes: small, fileName: 'one.json' },
      { bytes: Buffer.from(bytes), fileName: 'big.har' },
      { bytes: small, fileName: 'two.json' },
    ]
    const out = await uploadInWorkers(
      workers,
      streamed.store,
      inputs.map((i) => ({ ...i, bytes: Buffer.from(i.bytes) })),
      {},
      streamed.target,
    )
    const inline = await world()
    const imported = inputs.map((i) => runImportJob('store', i, {}))
    const answer = await inline.store.write(
      async (tx) => await storeUploaded(tx, imported, inline.target),
    )
    expect(Buffer.concat(out.resultJson).toString()).toBe(Buffer.concat(answer).toString())
    expect(out.files.map((f) => [f.file, f.count])).toEqual(
      inputs.map((i, n) => [i.fileName, imported[n]?.count]),
    )
    expect(await rowsOf(streamed.store, streamed.target.workspaceId)).toEqual(
      await rowsOf(inline.store, inline.target.workspaceId),
    )
  })

  it(
    "stores nothing and answers the file's error when a large HAR breaks the schema after runs were sent",
    { timeout: 60_000 },
    async () => {
      const doc = JSON.parse(reorderingHar().toString()) as {
        log: { entries: Array<{ request: Record<string, unknown> }> }
      }
      const last = doc.log.entries.at(-1)
      if (last !== undefined) delete last.request['method']
      const bytes = Buffer.from(JSON.stringify(doc))
      const { store, target } = await world()
      const workers = new UploadWorkers()
      onTestFinished(() => workers.close())
      const expected: unknown = (() => {
        try {
          runImportJob('store', { bytes, fileName: 'big.har' }, {})
        } catch (err) {
          return err
        }
        return null
      })()
      expect(expected).toMatchObject({ code: 'ERR_IMPORT_INVALID' })
      await expect(
        uploadInWorkers(
          workers,
          store,
          [{ bytes: Buffer.from(bytes), fileName: 'big.har' }],
          {},
          target,
        ),
      ).rejects.toMatchObject({ code: 'ERR_IMPORT_INVALID', message: (expected as Error).message })
      expect(await rowsOf(store, target.workspaceId)).toEqual([])
    },
  )
})

describe('streamFile', () => {
  it('sends a large HAR raw or packed run by run, as the writer keeps up or not, and what a writer stores of it equals importing it whole', async () => {
    const bytes = reorderingHar()
    const messages: RunMessage[] = []
    let asked = 0
    // the writer is behind every other time it is asked
    const link = {
      send: (m: RunMessage) => {
        messages.push(m)
      },
      behind: () => asked++ % 2 === 1,
    }
    const imported = streamFile({ bytes, fileName: 'big.har' }, {}, link, () => {
      throw new Error('nothing to explain')
    })
    const kinds = messages.map((m) => Object.keys(m)[0])
    expect(kinds.filter((k) => k === 'raw').length).toBeGreaterThan(0)
    expect(kinds.filter((k) => k === 'held').length).toBeGreaterThan(0)
    expect(kinds.at(-1)).toBe('placed')
    expect(imported.count).toBeGreaterThan(RUN_LENGTH)

    const streamed = await world()
    const answer = await streamed.store.write(async (tx) => {
      const storer = new UploadStorer(tx, streamed.target)
      for (const m of messages) {
        if ('raw' in m) await storer.hold(packRawRun(m.raw))
        else if ('held' in m) await storer.hold(m.held)
        else if ('placed' in m) await storer.place(m.placed.order)
      }
      return storer.done()
    })
    const inline = await world()
    const expected = await inline.store.write(
      async (tx) =>
        await storeUploaded(
          tx,
          [runImportJob('store', { bytes, fileName: 'big.har' }, {})],
          inline.target,
        ),
    )
    expect(Buffer.concat(answer).toString()).toBe(Buffer.concat(expected).toString())
    expect(await rowsOf(streamed.store, streamed.target.workspaceId)).toEqual(
      await rowsOf(inline.store, inline.target.workspaceId),
    )
  })

  it('sends any other file validated and packed', () => {
    const messages: RunMessage[] = []
    const bytes = Buffer.from(JSON.stringify({ transactions: ['a', 'b'].map(txn) }))
    const imported = streamFile(
      { bytes, fileName: 'two.json' },
      {},
      {
        send: (m) => {
          messages.push(m)
        },
        behind: () => false,
      },
      () => {},
    )
    expect(imported).toMatchObject({ file: 'two.json', count: 2 })
    expect(messages.map((m) => Object.keys(m)[0])).toEqual(['run'])
  })
})

const txn = (name: string): TransactionInput => ({
  name,
  description: null,
  tags: [name === 'b' ? 'bee' : 'x'],
  dsl: {
    requestDsl: { method: 'GET', path: `/${name}` },
    responseDsl: { status: 200, text: name },
  },
})

function packed(names: string[]): PackedDrafts {
  const pending: FinishInput = {
    format: 'har',
    dslType: 'HAR_DSL',
    fileName: 'f.har',
    transactions: names.map(txn),
    warnings: [],
  }
  let run: PackedDrafts = { count: 0, packed: [], tags: [] }
  packDraftsInRuns('f.har', finishImport(pending), Infinity, (r) => {
    run = r
  })
  return run
}

describe('UploadStorer held rows', () => {
  it('gives held rows the order placed, ids ascending, in the rows and in the answer', async () => {
    const { store, target } = await world()
    const answer = await store.write(async (tx) => {
      const storer = new UploadStorer(tx, target)
      await storer.add(packed(['first']))
      await storer.hold(packed(['a', 'b']))
      await storer.hold(packed(['c']))
      await storer.place([2, 0, 1])
      await storer.add(packed(['last']))
      return storer.done()
    })
    const listed = JSON.parse(Buffer.concat(answer).toString()) as Array<{
      id: number
      name: string
      tags: string[]
      dsl: { responseDsl: { text: string } }
    }>
    expect(listed.map((t) => t.name)).toEqual(['first', 'c', 'a', 'b', 'last'])
    expect(listed.map((t) => t.id)).toEqual([...listed.map((t) => t.id)].sort((x, y) => x - y))
    const rows = (await rowsOf(store, target.workspaceId)) as Array<{
      id: number
      name: string
      tags: string[]
      dsl: { responseDsl: { text: string } }
    }>
    expect(rows.map((r) => [r.id, r.name, r.tags, r.dsl.responseDsl.text])).toEqual(
      listed.map((t) => [t.id, t.name, t.tags, t.dsl.responseDsl.text]),
    )
    expect(rows.find((r) => r.name === 'b')?.tags).toEqual(['bee'])
  })

  it('deletes dropped rows, and refuses to finish with rows never placed', async () => {
    const { store, target } = await world()
    const answer = await store.write(async (tx) => {
      const storer = new UploadStorer(tx, target)
      await storer.hold(packed(['void']))
      await storer.drop()
      await storer.add(packed(['kept']))
      return storer.done()
    })
    expect(
      (JSON.parse(Buffer.concat(answer).toString()) as Array<{ name: string }>).map((t) => t.name),
    ).toEqual(['kept'])
    expect(
      ((await rowsOf(store, target.workspaceId)) as Array<{ name: string }>).map((r) => r.name),
    ).toEqual(['kept'])
    await expect(
      store.write(async (tx) => {
        const storer = new UploadStorer(tx, target)
        await storer.hold(packed(['never']))
        return storer.done()
      }),
    ).rejects.toThrow(/never placed/)
    expect(
      ((await rowsOf(store, target.workspaceId)) as Array<{ name: string }>).map((r) => r.name),
    ).toEqual(['kept'])
  })
})

describe('packRawRun', () => {
  it('validates and packs a raw run as validating the transactions first does', () => {
    const run = packRawRun(rawRunOf('f.har', 'har', 'HAR_DSL', ['a', 'b'].map(txn)))
    expect({
      count: run.count,
      tags: run.tags,
      bytes: Buffer.concat(run.packed).toString(),
    }).toEqual({
      count: 2,
      tags: packed(['a', 'b']).tags,
      bytes: Buffer.concat(packed(['a', 'b']).packed).toString(),
    })
  })

  it('refuses a run with a transaction the DSL refuses, naming the file', () => {
    const raw = rawRunOf('f.har', 'har', 'HAR_DSL', [
      txn('a'),
      {
        ...txn('b'),
        dsl: {
          requestDsl: { method: 5 as unknown as string, path: '/b' },
          responseDsl: { status: 200 },
        },
      },
    ])
    expect(() => packRawRun(raw)).toThrow(
      expect.objectContaining({
        code: 'ERR_IMPORT_INVALID',
        message: expect.stringContaining('f.har') as unknown,
      }),
    )
  })
})

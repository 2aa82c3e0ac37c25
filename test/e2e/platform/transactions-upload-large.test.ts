import { describe, expect, it } from 'vitest'
import { OFF_THREAD_BYTES } from '../../../src/api/v1/upload/index.js'
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js'
import { generatedHar } from '../../helpers/generated-har.js'
import {
  createService,
  envelope,
  expectError,
  formOf,
  transactionsPath,
} from './catalog-helpers.js'

/*
 * Uploads of 1 MiB or more take the worker path: an importer thread packs the
 * transactions a run at a time while a writer thread stores them through its own connection.
 * What a client sees must be what the event-loop path gives: one write, all or nothing.
 */

interface Created {
  id: number
  name: string
  serviceId: number
  dslType: string
  link: string
}

/** A transactions document of `count` transactions, ~500 bytes each; `bad` makes the last one unservable. */
function transactionsFile(count: number, bad = false): string {
  const transactions = Array.from({ length: count }, (_, i) => ({
    name: `item ${i}`,
    dsl: {
      requestDsl:
        bad && i === count - 1
          ? { url: { matcherName: 'matches', matchingValue: '(' } }
          : { method: 'GET', path: `/items/${i}` },
      responseDsl: { status: 200, text: JSON.stringify({ id: i, text: 'x'.repeat(400) }) },
    },
  }))
  return JSON.stringify({ transactions })
}

async function total(platform: TestPlatform): Promise<number | undefined> {
  return (await envelope<unknown[]>(await platform.request(transactionsPath(platform)))).total
}

/** A multipart body sent in chunks without a Content-Length (Transfer-Encoding: chunked). */
function chunkedForm(
  fields: Record<string, string>,
  files: Array<{ name: string; text: string }>,
): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = 'chunked-boundary-5d1e'
  const parts = [
    ...Object.entries(fields).map(
      ([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
    ),
    ...files.map(
      (f) =>
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${f.name}"\r\ncontent-type: application/octet-stream\r\n\r\n${f.text}\r\n`,
    ),
    `--${boundary}--\r\n`,
  ]
  const bytes = Buffer.from(parts.join(''))
  let at = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close()
        return
      }
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + 100_000)))
      at += 100_000
    },
  })
  return { body, type: `multipart/form-data; boundary=${boundary}` }
}

describe('/api/v1 transactions: large uploads (worker threads)', () => {
  it(
    'stores nothing when the last of 2,500 transactions could never be served, after earlier runs were written: 400 naming the file',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform()
      const serviceId = await createService(platform)
      const text = transactionsFile(2500, true)
      expect(text.length).toBeGreaterThan(OFF_THREAD_BYTES)
      const res = await platform.request(transactionsPath(platform), {
        method: 'POST',
        body: formOf({ serviceId: String(serviceId) }, [{ name: 'big.json', bytes: text }]),
      })
      const body = await expectError(res, 400, 'ERR_DSL_INVALID')
      expect(body.error?.message).toContain('big.json')
      expect(body.error?.details?.[0]).toMatchObject({
        file: 'big.json',
        path: expect.stringContaining('/2499/') as unknown,
      })
      expect(await total(platform)).toBe(0)
      // the write lock was given back: the next upload is stored
      const good = await platform.request(transactionsPath(platform), {
        method: 'POST',
        body: formOf({ serviceId: String(serviceId) }, [
          { name: 'good.json', bytes: transactionsFile(2500) },
        ]),
      })
      expect(good.status).toBe(200)
      expect(await total(platform)).toBe(2500)
    },
  )

  it(
    'stores several files in one write, in order, from a chunked body without Content-Length, naming each file in its warnings',
    { timeout: 60_000 },
    async () => {
      const platform = await startTestPlatform({ uploadLimit: 64 * 1024 * 1024 })
      const serviceId = await createService(platform)
      const small = JSON.stringify({
        transactions: [
          {
            name: 'first',
            tags: ['small'],
            dsl: { requestDsl: { method: 'GET', path: '/first' }, responseDsl: { status: 204 } },
          },
        ],
      })
      const har = generatedHar(3000)
      // an entry the HAR importer skips with a warning
      const withWarning = har.replace('"status":200', '"status":0')
      expect(withWarning.length).toBeGreaterThan(OFF_THREAD_BYTES)
      const { body, type } = chunkedForm({ serviceId: String(serviceId), verbose: 'true' }, [
        { name: 'small.json', text: small },
        { name: 'big.har', text: withWarning },
      ])
      const res = await platform.request(transactionsPath(platform), {
        method: 'POST',
        body,
        headers: { 'content-type': type },
        duplex: 'half',
      } as RequestInit)
      expect(res.status).toBe(200)
      const answer = await envelope<Created[]>(res)
      expect(answer.result).toHaveLength(3000)
      expect(answer.result[0]).toMatchObject({
        name: 'first',
        serviceId,
        dslType: 'GENERIC_DSL',
        tags: ['small'],
      })
      expect(answer.result.slice(1).every((t) => t.dslType === 'HAR_DSL')).toBe(true)
      expect(answer.warnings?.some((w) => (w as { file?: string }).file === 'big.har')).toBe(true)
      // the answer is what is stored
      const listed = await envelope<Created[]>(
        await platform.request(`${transactionsPath(platform)}?limit=5000&sort=id`),
      )
      expect(listed.total).toBe(3000)
      const stored = await envelope<Created>(await platform.request(answer.result[1]?.link ?? ''))
      expect(stored.result).toEqual(answer.result[1])
    },
  )
})

import type { Route } from './route.js'
import { compileMetadataPattern } from './patterns.js'
import { invalidInput, malformed, notFound } from './errors.js'
import type { WireMockContext } from './context.js'
import type { WireMockStub } from './stubs.js'

/**
 * `/__admin/mappings...`: list, add, read, edit and remove stubs, reset to the document's own,
 * save (mark persistent), import, and find or remove by metadata.
 */
export function mappingRoutes(ctx: WireMockContext): Route[] {
  const { layer } = ctx
  const page = (
    stubs: readonly WireMockStub[],
    query: URLSearchParams,
  ): { mappings: unknown[]; meta: { total: number } } => {
    const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0)
    const limit =
      query.get('limit') === null ? Infinity : Math.max(0, Number(query.get('limit')) || 0)
    // Newest first, as WireMock lists them.
    const newest = [...stubs].reverse()
    return {
      mappings: newest.slice(offset, offset + limit).map((s) => s.json),
      meta: { total: stubs.length },
    }
  }
  return [
    ['GET', '/__admin/mappings', ({ query }) => ({ status: 200, body: page(layer.list(), query) })],
    [
      'POST',
      '/__admin/mappings',
      async ({ body }) => {
        const stub = layer.build(stubBody(body), await ctx.converter())
        await layer.replace([...layer.list().filter((s) => s.id !== stub.id), stub])
        return { status: 201, body: stub.json }
      },
    ],
    [
      'DELETE',
      '/__admin/mappings',
      async () => {
        await layer.replace([], { hideBase: true })
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/mappings/reset',
      async () => {
        await ctx.resetMappings()
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/mappings/save',
      () => {
        layer.persistAll()
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/mappings/import',
      async ({ body }) => {
        const input = objectBody(body)
        const given = input['mappings']
        if (!Array.isArray(given)) {
          throw invalidInput('/mappings', 'mappings must be an array of stub mappings')
        }
        const options =
          typeof input['importOptions'] === 'object' && input['importOptions'] !== null
            ? (input['importOptions'] as Record<string, unknown>)
            : {}
        const policy = options['duplicatePolicy'] ?? 'OVERWRITE'
        if (policy !== 'OVERWRITE' && policy !== 'IGNORE') {
          throw invalidInput(
            '/importOptions/duplicatePolicy',
            'duplicatePolicy must be OVERWRITE or IGNORE',
          )
        }
        const convert = await ctx.converter()
        const built = given.map((stub, i) => {
          try {
            return layer.build(stubBody(stub), convert)
          } catch (err) {
            throw prefixed(err, `/mappings/${i}`)
          }
        })
        const kept = options['deleteAllNotInImport'] === true ? [] : [...layer.list()]
        for (const stub of built) {
          const at = kept.findIndex((s) => s.id === stub.id)
          if (at === -1) kept.push(stub)
          else if (policy === 'OVERWRITE') kept[at] = stub
        }
        await layer.replace(
          kept,
          options['deleteAllNotInImport'] === true ? { hideBase: true } : {},
        )
        return { status: 200, body: {} }
      },
    ],
    [
      'POST',
      '/__admin/mappings/find-by-metadata',
      async ({ body, query }) => {
        const test = compileMetadataPattern(body, await ctx.converter())
        return {
          status: 200,
          body: page(
            layer.list().filter((s) => test(s.json['metadata'])),
            query,
          ),
        }
      },
    ],
    [
      'POST',
      '/__admin/mappings/remove-by-metadata',
      async ({ body }) => {
        const test = compileMetadataPattern(body, await ctx.converter())
        await layer.replace(layer.list().filter((s) => !test(s.json['metadata'])))
        return { status: 200, body: {} }
      },
    ],
    // Stubs no journaled request was served by (the Java client's findUnmatchedStubs).
    [
      'GET',
      '/__admin/mappings/unmatched',
      async ({ query }) => ({ status: 200, body: page(await unservedStubs(ctx), query) }),
    ],
    [
      'DELETE',
      '/__admin/mappings/unmatched',
      async () => {
        const unserved = new Set(await unservedStubs(ctx))
        await layer.replace(layer.list().filter((s) => !unserved.has(s)))
        return { status: 200, body: {} }
      },
    ],
    [
      'GET',
      '/__admin/mappings/:id',
      ({ params }) => {
        const stub = layer.get(params['id'] ?? '')
        if (stub === undefined) throw notFound(`Stub mapping ${params['id'] ?? ''} not found`)
        return { status: 200, body: stub.json }
      },
    ],
    [
      'PUT',
      '/__admin/mappings/:id',
      async ({ params, body }) => {
        const id = params['id'] ?? ''
        const at = layer.list().findIndex((s) => s.id === id)
        if (at === -1) throw notFound(`Stub mapping ${id} not found`)
        const stub = layer.build(stubBody(body), await ctx.converter(), id)
        const next = [...layer.list()]
        // An edited stub keeps its place (and so its rank among equal priorities).
        next[at] = stub
        await layer.replace(next)
        return { status: 200, body: stub.json }
      },
    ],
    [
      'DELETE',
      '/__admin/mappings/:id',
      async ({ params }) => {
        const id = params['id'] ?? ''
        if (layer.get(id) === undefined) throw notFound(`Stub mapping ${id} not found`)
        await layer.replace(layer.list().filter((s) => s.id !== id))
        return { status: 200, body: {} }
      },
    ],
  ]
}

async function unservedStubs(ctx: WireMockContext): Promise<WireMockStub[]> {
  const served = new Set<WireMockStub>()
  for (const record of await ctx.journal.records()) {
    const stub = ctx.layer.byTransaction(record.transactionId, record.respondingTxn)
    if (stub !== undefined) served.add(stub)
  }
  return ctx.layer.list().filter((s) => !served.has(s))
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw malformed('the body must be a JSON object')
  }
  return body as Record<string, unknown>
}

function stubBody(body: unknown): Record<string, unknown> {
  const stub = objectBody(body)
  if (
    stub['request'] !== undefined &&
    (typeof stub['request'] !== 'object' || stub['request'] === null)
  ) {
    throw invalidInput('/request', 'request must be an object')
  }
  if (
    stub['response'] !== undefined &&
    (typeof stub['response'] !== 'object' || stub['response'] === null)
  ) {
    throw invalidInput('/response', 'response must be an object')
  }
  return stub
}

/** The same error with its pointers inside `/mappings/{i}` of an import. */
function prefixed(err: unknown, prefix: string): unknown {
  if (typeof err === 'object' && err !== null && 'errors' in err && Array.isArray(err.errors)) {
    for (const item of err.errors as Array<{ source?: { pointer: string } }>) {
      item.source = { pointer: prefix + (item.source?.pointer ?? '') }
    }
  }
  return err
}

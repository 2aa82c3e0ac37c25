import type { DslTypeKey, ImportResult, ImportWarning } from '../../../importers/index.js'
import { importOffThread } from '../import-off-thread.js'
import type { StoredTransaction, Workspace } from '../../store/index.js'
import type { ApiContext, HandlerResult, MultipartForm, Route, UploadedFile } from '../http/types.js'
import { invalidField } from '../validation.js'
import { booleanOf, intOf, serviceGone, serviceOf } from './catalog-lookups.js'
import { assertServable, inFile, tagNamesOf, type TransactionDraft } from './transaction-input.js'
import { transactionView } from './views.js'

/*
 * Transactions from files: the multipart form of `POST /workspaces/{ws}/transactions` (imports
 * and stores) and `POST /transactions/convert` (imports and returns the DSL, storing nothing). Any
 * format the importers detect is accepted, whatever the file part's field name or extension:
 * transaction JSON/YAML, exported transactions, convert results, HAR, OpenAPI 2/3, RR pairs,
 * WireMock, Postman, and zip archives of them.
 */

/** One imported file: its name and what the importer made of it. */
interface Imported {
  file: string
  result: ImportResult
}

/** The file parts of a form; at least one is required (400 naming `/file`). */
function filesOf (form: MultipartForm): UploadedFile[] {
  if (form.files.length === 0) throw invalidField('/file', 'is required: send the file to import as a part of the multipart form')
  return form.files
}

/**
 * Imports each uploaded file. Errors keep the importers' codes and name the file: 415
 * ERR_IMPORT_FORMAT_UNKNOWN (not a format Understudy reads), 400 ERR_IMPORT_INVALID / ERR_DSL_PARSE /
 * ERR_DSL_INVALID (malformed), 413 ERR_IMPORT_TOO_LARGE (an archive that inflates past the limit).
 */
async function importAll (files: readonly UploadedFile[], maxBytes: number): Promise<Imported[]> {
  const imported: Imported[] = []
  // One at a time: large files run in a worker thread (import-off-thread.ts), off the event loop.
  for (const f of files) imported.push({ file: f.filename, result: await importOffThread({ bytes: f.bytes, fileName: f.filename }, { maxBytes }) })
  return imported
}

/** Warnings of every import, each naming its file. */
function warningsOf (imported: readonly Imported[]): ImportWarning[] {
  return imported.flatMap(({ file, result }) => result.warnings.map((w) => (w.file === undefined ? { ...w, file } : w)))
}

/**
 * The dsl type of each transaction of a result, in order: a zip merges parts of several formats
 * (`parts` says how many transactions each gave), any other file has one.
 */
function dslTypesOf (result: ImportResult): DslTypeKey[] {
  const count = result.document.transactions.length
  if ('parts' in result && Array.isArray(result.parts)) {
    const types = (result.parts as Array<{ dslType: DslTypeKey; transactions: number }>).flatMap((p) => new Array<DslTypeKey>(p.transactions).fill(p.dslType))
    if (types.length === count) return types
  }
  return new Array<DslTypeKey>(count).fill(result.dslType)
}

/** The transactions of one import, compiled (a transaction that could never be served is refused). */
function draftsOf ({ file, result }: Imported): Array<TransactionDraft & { dslType: string }> {
  try {
    assertServable(result.document)
  } catch (err) {
    throw inFile(err, file)
  }
  const types = dslTypesOf(result)
  return result.document.transactions.map((txn, i) => ({
    name: txn.name,
    description: txn.description ?? null,
    // importer tags are never blank in practice; trimmed and de-duplicated like a request's
    tags: tagNamesOf(txn.tags, '/tags', () => {}),
    dsl: txn.dsl,
    dslType: types[i] ?? result.dslType,
  }))
}

/**
 * The multipart form of `POST /workspaces/{ws}/transactions`: fields `serviceId` (required; the
 * query parameter is accepted too) and `verbose`, and one or more file parts of any field name.
 * Every file is imported and every transaction compiled before anything is stored, then all are
 * created in one write: 200 with `result` = the array of created Transactions, and with
 * `verbose=true` an envelope member `warnings` listing what the importers could not carry over.
 *
 * @example
 * // curl -F serviceId=3 -F verbose=true -F file=@api.har .../api/v1/workspaces/1/transactions
 */
export async function uploadTransactions (ctx: ApiContext, workspace: Workspace): Promise<HandlerResult> {
  const form = await ctx.multipart()
  const rawServiceId = form.fields['serviceId'] ?? ctx.query.get('serviceId') ?? ''
  if (rawServiceId.trim() === '') throw invalidField('/serviceId', 'is required (a field of the form)')
  const serviceId = intOf(rawServiceId.trim(), '/serviceId')
  const verbose = booleanOf(form.fields['verbose'] ?? ctx.query.get('verbose'), '/verbose')
  const files = filesOf(form)
  const service = await serviceOf(ctx.deps.store, workspace.id, serviceId, '/serviceId')
  const imported = await importAll(files, ctx.deps.options.uploadLimit)
  const drafts = imported.flatMap(draftsOf)
  const by = ctx.principal.user.email
  const created = await ctx.deps.store.write(async (tx) => {
    await tx.tags.ensure(ctx.principal.account.id, drafts.flatMap((d) => d.tags), by)
    const out: StoredTransaction[] = []
    for (const draft of drafts) out.push(await tx.transactions.create({ workspaceId: workspace.id, serviceId: service.id, ...draft, by }))
    return out
  }).catch((err: unknown) => { throw serviceGone(err, service.id) })
  const result = created.map((t) => transactionView(t, service.name))
  return verbose ? { result, extra: { warnings: warningsOf(imported) } } : { result }
}

/**
 * A convert result of spec/002 ("Imported transaction"): `nativeId` is the name the importer
 * gave (`GET /pets/{id}`, an operationId, a mapping name), which is also what importing the
 * result back names the transaction.
 *
 * @example
 * convertView(txn) // { nativeId: 'GET /pets', priority: 10, requestDsl: {...}, responseDsl: {...} }
 */
export function convertView (txn: ImportResult['document']['transactions'][number]) {
  return { nativeId: txn.name, priority: txn.dsl.priority, requestDsl: txn.dsl.requestDsl, responseDsl: txn.dsl.responseDsl }
}

/**
 * `POST /api/v1/transactions/convert?verbose=`: multipart with one or more files, any field name
 * (`verbose` may also be a form field). 200 with `result` = the imported dsl objects of every
 * file, in order; nothing is stored, so no workspace is involved. `verbose=true` adds `warnings`.
 */
export const convertRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/transactions/convert',
    family: 'v1',
    handler: async (ctx) => {
      const form = await ctx.multipart()
      const verbose = booleanOf(ctx.query.get('verbose') ?? form.fields['verbose'], '/verbose')
      const imported = await importAll(filesOf(form), ctx.deps.options.uploadLimit)
      const result = imported.flatMap(({ result: r }) => r.document.transactions.map(convertView))
      return verbose ? { result, extra: { warnings: warningsOf(imported) } } : { result }
    },
  },
]

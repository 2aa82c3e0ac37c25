import type { ImportContext, ImportWarning } from '../../../importers/index.js'
import { importForUpload } from '../import-off-thread.js'
import type { Workspace } from '../../store/index.js'
import type { ApiContext, HandlerResult, MultipartForm, Route, UploadedFile } from '../http/types.js'
import { timeSlicer } from '../time-slice.js'
import { invalidField } from '../validation.js'
import { booleanOf, intOf, serviceGone, serviceOf } from './catalog-lookups.js'
import { readDrafts, type EncodedDraft } from './import-drafts.js'
import { transactionLink } from './views.js'

/*
 * Transactions from files: the multipart form of `POST /workspaces/{ws}/transactions` (imports
 * and stores) and `POST /transactions/convert` (imports and returns the DSL, storing nothing). Any
 * format the importers detect is accepted, whatever the file part's field name or extension:
 * transaction JSON/YAML, exported transactions, convert results, HAR, OpenAPI 2/3, RR pairs,
 * WireMock, Postman, and zip archives of them.
 *
 * Large uploads keep the event loop free (issue 8): a file of 1 MiB or more is imported, compiled
 * and encoded in a worker thread (import-off-thread.ts), which hands back bytes rather than
 * objects; the rows are written in one database transaction that gives the event loop a turn
 * every few milliseconds, and the answer is written as JSON text in pieces along the way.
 */

/** The file parts of a form; at least one is required (400 naming `/file`). */
function filesOf (form: MultipartForm): UploadedFile[] {
  if (form.files.length === 0) throw invalidField('/file', 'is required: send the file to import as a part of the multipart form')
  return form.files
}

/**
 * Imports each uploaded file for `job`, one at a time (large ones in a worker thread; the form's
 * bytes move there and are not read again). Errors keep the importers' codes and name the file:
 * 415 ERR_IMPORT_FORMAT_UNKNOWN (not a format Understudy reads), 400 ERR_IMPORT_INVALID /
 * ERR_DSL_PARSE / ERR_DSL_INVALID (malformed, or for `store` a transaction that could never be
 * served), 413 ERR_IMPORT_TOO_LARGE (an archive that inflates past the limit).
 */
async function importAll<J extends 'store' | 'convert'> (job: J, files: readonly UploadedFile[], ctx: ImportContext) {
  const imported = []
  for (const f of files) imported.push({ file: f.filename, ...await importForUpload(job, { bytes: f.bytes, fileName: f.filename }, ctx) })
  return imported
}

/** Warnings of every import, each naming its file. */
function warningsOf (imported: ReadonlyArray<{ file: string; warnings: readonly ImportWarning[] }>): ImportWarning[] {
  return imported.flatMap(({ file, warnings }) => warnings.map((w) => (w.file === undefined ? { ...w, file } : w)))
}

/**
 * Rows stored in one synchronous step (about 25 us each): short enough that a request waiting
 * meanwhile is answered within milliseconds, long enough that the per-call costs vanish.
 */
const ROWS_PER_RUN = 200

/** The size of one piece of the response. */
const PIECE_BYTES = 256 * 1024

/**
 * Writes answer text and bytes into buffers of about PIECE_BYTES: text is encoded once, straight
 * into the piece, and bytes (the stored DSL's JSON) are copied as they are, never decoded.
 */
class Pieces {
  readonly #out: Buffer[] = []
  #piece = Buffer.allocUnsafe(PIECE_BYTES)
  #at = 0

  text (value: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: when that fits, no separate measuring pass
    if (this.#piece.length - this.#at < value.length * 3) this.#room(Buffer.byteLength(value))
    this.#at += this.#piece.write(value, this.#at)
  }

  bytes (value: Uint8Array): void {
    this.#room(value.length)
    this.#piece.set(value, this.#at)
    this.#at += value.length
  }

  done (): Buffer[] {
    if (this.#at > 0) this.#out.push(this.#piece.subarray(0, this.#at))
    this.#at = 0
    return this.#out
  }

  #room (bytes: number): void {
    if (this.#piece.length - this.#at >= bytes) return
    if (this.#at > 0) this.#out.push(this.#piece.subarray(0, this.#at))
    this.#piece = Buffer.allocUnsafe(Math.max(PIECE_BYTES, bytes))
    this.#at = 0
  }
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
  const imported = await importAll('store', files, { maxBytes: ctx.deps.options.uploadLimit })
  const by = ctx.principal.user.email
  const slice = timeSlicer()
  const answer = new Pieces()
  // transactionView's members, in its order, around the stored DSL text
  const serviceMembers = `"serviceId":${service.id},"serviceName":${JSON.stringify(service.name)},`
  await ctx.deps.store.write(async (tx) => {
    await tx.tags.ensure(ctx.principal.account.id, [...new Set(imported.flatMap((i) => i.tags))], by)
    let separator = '['
    const into = { workspaceId: workspace.id, serviceId: service.id, by }
    const store = async (run: EncodedDraft[]): Promise<void> => {
      const ids = await tx.transactions.createEncodedMany(into, run)
      run.forEach(({ name, description, tagsJson, dslType, dslJson }, i) => {
        const id = ids[i] as number
        answer.text(`${separator}{"id":${id},"name":${JSON.stringify(name)},"description":${JSON.stringify(description ?? '')},${serviceMembers}"tags":`)
        answer.bytes(tagsJson)
        answer.text(`,"link":${JSON.stringify(transactionLink(workspace.id, id))},"dslType":${JSON.stringify(dslType)},"dsl":`)
        answer.bytes(dslJson)
        answer.text('}')
        separator = ','
      })
      // the write stays one database transaction; other requests are answered meanwhile
      await slice()
    }
    for (const { count, packed } of imported) {
      let run: EncodedDraft[] = []
      for (const draft of readDrafts(packed, count)) {
        run.push(draft)
        if (run.length === ROWS_PER_RUN) {
          await store(run)
          run = []
        }
      }
      if (run.length > 0) await store(run)
    }
    answer.text(separator === '[' ? '[]' : ']')
  }).catch((err: unknown) => { throw serviceGone(err, service.id) })
  const resultJson = answer.done()
  return verbose ? { resultJson, extra: { warnings: warningsOf(imported) } } : { resultJson }
}

/**
 * `POST /api/v1/transactions/convert?verbose=`: multipart with one or more files, any field name
 * (`verbose` may also be a form field). 200 with `result` = the imported dsl objects of every
 * file, in order (v1/import-drafts.ts `convertView`); nothing is stored, so no workspace is
 * involved. `verbose=true` adds `warnings`.
 */
export const convertRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/transactions/convert',
    family: 'v1',
    handler: async (ctx) => {
      const form = await ctx.multipart()
      const verbose = booleanOf(ctx.query.get('verbose') ?? form.fields['verbose'], '/verbose')
      const imported = await importAll('convert', filesOf(form), { maxBytes: ctx.deps.options.uploadLimit })
      const items = imported.map((i) => i.json).filter((json) => json.length > 0)
      const comma = Buffer.from(',')
      const resultJson = [Buffer.from('['), ...items.flatMap((json, i) => (i === 0 ? [json] : [comma, json])), Buffer.from(']')]
      return verbose ? { resultJson, extra: { warnings: warningsOf(imported) } } : { resultJson }
    },
  },
]

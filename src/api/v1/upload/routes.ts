import type { ImportContext, ImportWarning } from '../../../../importers/index.js'
import {
  importOffThread,
  OFF_THREAD_BYTES,
  UploadWorkers,
  uploadInWorkers,
  type SpareImportWorker,
} from './off-thread.js'
import { runImportJob } from './jobs.js'
import type { Workspace } from '../../../store/index.js'
import type {
  ApiContext,
  HandlerResult,
  MultipartForm,
  Route,
  UploadedFile,
} from '../../http/types.js'
import { timeSlicer } from '../../../net/index.js'
import { invalidField } from '../../validation.js'
import { booleanOf, intOf, serviceGone, serviceOf } from '../catalog-lookups.js'
import { storeUploaded } from './store.js'

/*
 * Transactions from files: the multipart form of `POST /workspaces/{ws}/transactions` (imports
 * and stores) and `POST /transactions/convert` (imports and returns the DSL, storing nothing). Any
 * format the importers detect is accepted, whatever the file part's field name or extension:
 * transaction JSON/YAML, exported transactions, convert results, HAR, OpenAPI 2/3, RR pairs,
 * WireMock, Postman, and zip archives of them.
 *
 * Large uploads keep the event loop free: when the files come to 1 MiB or more, two
 * worker threads (started as the request arrives) take them: one imports, compiles and encodes,
 * the other inserts the rows and commits through its own database connection while the event
 * loop holds the store's write mutex, and hands back the answer's JSON as bytes
 * (off-thread.ts `uploadInWorkers`). Smaller uploads are stored on the event loop, in one
 * write that yields every few milliseconds.
 */

/** The file parts of a form; at least one is required (400 naming `/file`). */
function filesOf(form: MultipartForm): UploadedFile[] {
  if (form.files.length === 0) {
    throw invalidField(
      '/file',
      'is required: send the file to import as a part of the multipart form',
    )
  }
  return form.files
}

/**
 * Converts each uploaded file, one at a time (large ones in a worker thread; the form's bytes
 * move there and are not read again). Errors keep the importers' codes and name the file: 415
 * ERR_IMPORT_FORMAT_UNKNOWN (not a format Understudy reads), 400 ERR_IMPORT_INVALID /
 * ERR_DSL_PARSE / ERR_DSL_INVALID (malformed), 413 ERR_IMPORT_TOO_LARGE (an archive that inflates
 * past the limit). The same errors, and ERR_DSL_INVALID for a transaction that could never be
 * served, come from the imports of `uploadTransactions`.
 */
async function convertAll(
  files: readonly UploadedFile[],
  ctx: ImportContext,
  spare: SpareImportWorker | undefined,
) {
  const imported = []
  for (const f of files) {
    imported.push({
      file: f.filename,
      ...(await importOffThread(
        'convert',
        { bytes: f.bytes, fileName: f.filename, movable: f.exclusive },
        ctx,
        spare,
      )),
    })
  }
  return imported
}

/** Warnings of every import, each naming its file. */
function warningsOf(
  imported: ReadonlyArray<{ file: string; warnings: readonly ImportWarning[] }>,
): ImportWarning[] {
  return imported.flatMap(({ file, warnings }) =>
    warnings.map((w) => (w.file === undefined ? { ...w, file } : w)),
  )
}

/**
 * The multipart form of `POST /workspaces/{ws}/transactions`: fields `serviceId` (required; the
 * query parameter is accepted too) and `verbose`, `summary`, and one or more file parts of any field name.
 * Every file is imported and every transaction compiled before anything is stored, then all are
 * created in one write: 200 with `result` = the array of created Transactions, and with
 * `verbose=true` an envelope member `warnings` listing what the importers could not carry over.
 * With `summary=true`, `result` is only `{created, files: [{file, created}]}` (summaryOf).
 *
 * @example
 * // curl -F serviceId=3 -F verbose=true -F file=@api.har .../api/v1/workspaces/1/transactions
 */
export async function uploadTransactions(
  ctx: ApiContext,
  workspace: Workspace,
): Promise<HandlerResult> {
  // a large upload's threads load their modules while the body is still arriving
  const declared = Number(ctx.req.headers['content-length'])
  let workers = declared >= OFF_THREAD_BYTES ? new UploadWorkers(ctx.deps.importSpare) : undefined
  try {
    const form = await ctx.multipart()
    const rawServiceId = form.fields['serviceId'] ?? ctx.query.get('serviceId') ?? ''
    if (rawServiceId.trim() === '') {
      throw invalidField('/serviceId', 'is required (a field of the form)')
    }
    const serviceId = intOf(rawServiceId.trim(), '/serviceId')
    const verbose = booleanOf(form.fields['verbose'] ?? ctx.query.get('verbose'), '/verbose')
    const summary = booleanOf(form.fields['summary'] ?? ctx.query.get('summary'), '/summary')
    const files = filesOf(form)
    const service = await serviceOf(ctx.deps.store, workspace.id, serviceId, '/serviceId')
    const importCtx = { maxBytes: ctx.deps.options.uploadLimit }
    const target = {
      accountId: ctx.principal.account.id,
      workspaceId: workspace.id,
      serviceId: service.id,
      serviceName: service.name,
      by: ctx.principal.user.email,
    }
    const inputs = files.map((f) => ({
      bytes: f.bytes,
      fileName: f.filename,
      movable: f.exclusive,
    }))
    let stored: {
      resultJson: Buffer[]
      files: ReadonlyArray<{ file: string; count: number; warnings: readonly ImportWarning[] }>
    }
    if (inputs.reduce((sum, i) => sum + i.bytes.byteLength, 0) >= OFF_THREAD_BYTES) {
      workers ??= new UploadWorkers(ctx.deps.importSpare)
      stored = await uploadInWorkers(workers, ctx.deps.store, inputs, importCtx, target)
    } else {
      const imported = inputs.map((input) => ({
        file: input.fileName,
        ...runImportJob('store', input, importCtx),
      }))
      const resultJson = await ctx.deps.store
        .write(async (tx) => await storeUploaded(tx, imported, target, timeSlicer()))
        .catch((err: unknown) => {
          throw serviceGone(err, service.id)
        })
      stored = { resultJson, files: imported }
    }
    const extra = verbose ? { extra: { warnings: warningsOf(stored.files) } } : {}
    if (summary) return { result: summaryOf(stored.files), ...extra }
    return { resultJson: stored.resultJson, ...extra }
  } finally {
    workers?.close()
  }
}

/**
 * The answer of `summary=true`: how many transactions were created, in all and per file, for a
 * caller that only reports the import (the dashboard) and need not receive every transaction.
 */
function summaryOf(files: ReadonlyArray<{ file: string; count: number }>): {
  created: number
  files: Array<{ file: string; created: number }>
} {
  return {
    created: files.reduce((sum, f) => sum + f.count, 0),
    files: files.map((f) => ({ file: f.file, created: f.count })),
  }
}

/**
 * `POST /api/v1/transactions/convert?verbose=`: multipart with one or more files, any field name
 * (`verbose` may also be a form field). 200 with `result` = the imported dsl objects of every
 * file, in order (drafts.ts `convertView`); nothing is stored, so no workspace is
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
      const imported = await convertAll(
        filesOf(form),
        { maxBytes: ctx.deps.options.uploadLimit },
        ctx.deps.importSpare,
      )
      const items = imported.map((i) => i.json).filter((json) => json.length > 0)
      const comma = Buffer.from(',')
      const resultJson = [
        Buffer.from('['),
        ...items.flatMap((json, i) => (i === 0 ? [json] : [comma, json])),
        Buffer.from(']'),
      ]
      return verbose ? { resultJson, extra: { warnings: warningsOf(imported) } } : { resultJson }
    },
  },
]

/*
 * The large-upload area: transactions from uploaded files (`POST /workspaces/{ws}/transactions`
 * as a multipart form, `POST /transactions/convert`), and imports run in worker threads for large
 * inputs so that the event loop keeps answering. Everything outside this folder goes through
 * this file (docs/architecture.md "Upload area").
 */
export { convertRoutes, uploadTransactions } from './routes.js'
export { importOffThread, OFF_THREAD_BYTES, SpareImportWorker } from './off-thread.js'

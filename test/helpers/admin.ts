import type { InspectionDetail, InspectionListEntry } from '../../src/inspect/index.js'
import type { TestServer } from './server.js'

/** The envelope of the mock services specification the admin listener answers with. */
interface Envelope<T> {
  apiVersion: number
  error: {
    code: string
    message: string
    details?: Array<{ path: string; message: string }>
  } | null
  result: T
  requestId: string | null
  skip?: number
  limit?: number
  total?: number
}

/** What one admin call returned: the HTTP status and the parsed envelope. */
interface AdminReply<T> {
  status: number
  contentType: string | null
  body: Envelope<T>
}

/** The admin base URL of a server started with `admin: true`. */
export function adminUrl(app: TestServer): string {
  if (app.admin === null) throw new Error('start the server with admin: true')
  return app.admin.url
}

/**
 * Calls the admin API of a test server and parses its envelope.
 *
 * @example
 * const { status, body } = await adminCall<InspectionListEntry[]>(app, 'GET', '/inspection?limit=5')
 */
export async function adminCall<T>(
  app: TestServer,
  method: string,
  path: string,
  body?: { text: string; contentType: string },
): Promise<AdminReply<T>> {
  const init: RequestInit = { method }
  if (body !== undefined) {
    init.body = body.text
    init.headers = { 'content-type': body.contentType }
  }
  const res = await fetch(adminUrl(app) + path, init)
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: (await res.json()) as Envelope<T>,
  }
}

/** `GET /inspection?skip=&limit=`: list entries, newest first. */
export async function inspectionList(
  app: TestServer,
  skip = 0,
  limit = 50,
): Promise<AdminReply<InspectionListEntry[]>> {
  return await adminCall<InspectionListEntry[]>(
    app,
    'GET',
    `/inspection?skip=${skip}&limit=${limit}`,
  )
}

/** `GET /inspection/{id}`. */
export async function inspectionDetail(
  app: TestServer,
  id: number | string,
): Promise<AdminReply<InspectionDetail | null>> {
  return await adminCall<InspectionDetail | null>(app, 'GET', `/inspection/${id}`)
}

/** The newest list entry (the request a test just made), failing loudly when there is none. */
export async function newestEntry(app: TestServer): Promise<InspectionListEntry> {
  const { body } = await inspectionList(app, 0, 1)
  const entry = body.result[0]
  if (entry === undefined) throw new Error('the inspection ring is empty')
  return entry
}

/** `PUT /config` with a JSON document. */
export async function putConfig(
  app: TestServer,
  document: unknown,
): Promise<AdminReply<{ transactions: number; serviceMockId: number } | null>> {
  return await adminCall(app, 'PUT', '/config', {
    text: JSON.stringify(document),
    contentType: 'application/json',
  })
}

/** One call of a WireMock admin route: parsed JSON body (undefined when empty), path params, query. */
export interface Call {
  body: unknown
  params: Record<string, string | undefined>
  query: URLSearchParams
}

/** What a route answers: a status and a JSON body (undefined: no body). */
export interface Reply {
  status: number
  body?: unknown
}

export type RouteHandler = (call: Call) => Reply | Promise<Reply>

/** `[method, path, handler]`, paths as find-my-way reads them (`:id` params). */
export type Route = [method: string, path: string, handler: RouteHandler]

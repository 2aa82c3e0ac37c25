import type { IncomingHttpHeaders } from 'node:http'
import type { ProxyResponse } from './proxy.js'

/** The request side both HTTP/1.1 and the HTTP/2 compatibility API offer. */
export interface AnyRequest {
  method?: string | undefined
  url?: string | undefined
  headers: IncomingHttpHeaders
  rawHeaders: string[]
  httpVersionMajor: number
  /** True once the client reset the request (HTTP/2 compat still ends the body then). */
  readonly aborted?: boolean
  /** True once the request was destroyed (the client went away, or its body was malformed). */
  readonly destroyed?: boolean
  /** HTTP/2 only: the stream, whose `endAfterHeaders` says whether a body follows. */
  readonly stream?: { readonly endAfterHeaders: boolean }
  on: (event: string, listener: (...args: never[]) => void) => unknown
  removeListener: (event: string, listener: (...args: never[]) => void) => unknown
  resume: () => unknown
  destroy: (error?: Error) => unknown
}

/** The response side both HTTP/1.1 and the HTTP/2 compatibility API offer. */
export interface AnyResponse extends ProxyResponse {
  writeHead: ((status: number, headers: string[]) => unknown) &
    ((status: number, message: string, headers: string[]) => unknown)
  end: (body?: Buffer) => unknown
}

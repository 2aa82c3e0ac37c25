import type { ResponseDsl } from '../../dsl/index.js'
import type { MatchRequest, ReportProblem } from '../../match/index.js'
import type { CompiledResponse } from '../compile-response.js'
import { compilePathParams, templateContext, type PathParams } from './context.js'
import { TemplateSyntaxError, type TemplateEngine, type TemplateFn } from './engine.js'
import { contextFields, unionReads, type TemplateReads } from './reads.js'

/** The parts of an answer a template renders. */
export interface RenderedResponse {
  statusMessage: string | null
  headers: string[]
  headers2: string[]
  body: Buffer
}

/** A templated response: every part compiled once, rendered per request. */
export interface TemplatedResponse {
  render: (req: MatchRequest, rawHeaders: readonly string[]) => RenderedResponse
}

/** Header values must stay writable whatever a request puts in them (no CR/LF, Latin-1 only). */
const unwritable = /[^\t\x20-\x7e\x80-\xff]/g

/**
 * Compiles the body, header values and status message of a `template: true` response. Problems
 * are reported at their pointer with the line inside the template; null when any part failed.
 */
export function compileTemplatedResponse(
  dsl: ResponseDsl,
  base: CompiledResponse,
  engine: TemplateEngine,
  pathTemplate: string | undefined,
  report: ReportProblem,
): TemplatedResponse | null {
  let failed = false
  const compile = (source: string, pointer: string): TemplateFn | null => {
    try {
      return engine.compile(source)
    } catch (err) {
      failed = true
      const line =
        err instanceof TemplateSyntaxError && err.line !== null
          ? ` (line ${err.line} of the template)`
          : ''
      report(pointer, `template error${line}: ${err instanceof Error ? err.message : String(err)}`)
      return null
    }
  }
  const bodySource = base.body.toString('utf8')
  const body = compile(bodySource, '/dsl/responseDsl/content')
  const statusMessage =
    dsl.statusMessage === undefined
      ? null
      : compile(dsl.statusMessage, '/dsl/responseDsl/statusMessage')
  // Header positions in the compiled list that carry a template, by the DSL header they come from.
  const headerTemplates: Array<TemplateFn | null> = []
  const baseHeaders = base.headers
  for (let i = 0; i < baseHeaders.length; i += 2) {
    const value = baseHeaders[i + 1] as string
    const index =
      dsl.headers?.findIndex((h) => h.name === baseHeaders[i] && h.value === value) ?? -1
    headerTemplates.push(
      value.includes('{{')
        ? compile(value, `/dsl/responseDsl/headers/${Math.max(index, 0)}/value`)
        : null,
    )
  }
  if (failed) return null
  const params: PathParams | null = compilePathParams(pathTemplate)
  const noBody = base.headers.every((h, i) => i % 2 === 1 || h !== 'content-length')

  // Only what the templates read is taken from the request.
  const fields = contextFields(
    [body, statusMessage, ...headerTemplates].reduce<TemplateReads>(
      (all, t) => (t === null ? all : unionReads(all, t.reads)),
      new Set(),
    ),
  )
  return {
    render(req, rawHeaders) {
      const ctx = templateContext(req, rawHeaders, params, fields)
      const text = body === null ? '' : body(ctx)
      const bytes = noBody ? Buffer.alloc(0) : Buffer.from(text, 'utf8')
      const headers: string[] = []
      const headers2: string[] = []
      for (let i = 0; i < baseHeaders.length; i += 2) {
        const name = baseHeaders[i] as string
        const template = headerTemplates[i / 2]
        let value =
          name === 'content-length'
            ? String(bytes.length)
            : template === null || template === undefined
              ? (baseHeaders[i + 1] as string)
              : template(ctx).replace(unwritable, '')
        if (name === 'content-length') value = String(bytes.length)
        headers.push(name, value)
      }
      for (let i = 0; i < base.headers2.length; i += 2) {
        const name = base.headers2[i] as string
        const at = headers.findIndex((h, j) => j % 2 === 0 && h.toLowerCase() === name)
        headers2.push(
          name,
          at === -1 ? (base.headers2[i + 1] as string) : (headers[at + 1] as string),
        )
      }
      return {
        statusMessage: statusMessage === null ? null : statusMessage(ctx).replace(unwritable, ''),
        headers,
        headers2,
        body: bytes,
      }
    },
  }
}

/**
 * The error catalogue: every error Understudy reports, keyed by its stable code. The key *is* the
 * code (checked by test/unit/errors/catalogue.test.ts) and docs/errors.md lists exactly these keys.
 * A retired code is never reused. `%s` placeholders are filled by `createError(code, args)`.
 *
 * @example
 * createError('ERR_SERVE_BODY_TOO_LARGE', [10485760]).statusCode // 413
 */
export const codes = {
  // configuration and command line
  ERR_CONFIG_INVALID: { status: 400, message: 'Invalid options: %s' },
  ERR_CONFIG_FILE: { status: 400, message: 'Cannot read %s: %s' },
  // the transaction DSL
  ERR_DSL_PARSE: { status: 400, message: 'Cannot parse %s: %s' },
  ERR_DSL_INVALID: { status: 400, message: 'Invalid mock definition: %s' },
  // importers
  ERR_IMPORT_FORMAT_UNKNOWN: { status: 415, message: 'Unrecognised file format: %s' },
  ERR_IMPORT_INVALID: { status: 400, message: 'Cannot import %s: %s' },
  ERR_IMPORT_TOO_LARGE: { status: 413, message: 'File %s is larger than the limit of %s' },
  // request matching (outcomes reported by the runtime)
  ERR_MATCH_NO_MATCH: { status: 404, message: 'No transaction matched %s %s' },
  // serving
  ERR_SERVE_CAPACITY: { status: 503, message: 'Capacity of %s concurrent requests reached' },
  ERR_SERVE_BODY_TOO_LARGE: {
    status: 413,
    message: 'Request body is larger than the limit of %s bytes',
  },
  ERR_SERVE_UPSTREAM_UNAVAILABLE: { status: 502, message: 'Upstream %s is unavailable: %s' },
  ERR_SERVE_UPSTREAM_TIMEOUT: { status: 502, message: 'Upstream %s did not answer within %s ms' },
  ERR_SERVE_LISTEN: { status: 500, message: 'Cannot listen on %s: %s' },
  ERR_SERVE_TLS: { status: 400, message: 'Cannot use the TLS certificate or key: %s' },
  ERR_SERVE_REQUEST_INVALID: { status: 422, message: 'The request does not fit %s: %s' },
  ERR_SERVE_CREDENTIALS_REQUIRED: { status: 401, message: '%s needs credentials: %s' },
  ERR_SERVE_BODY_TIMEOUT: { status: 408, message: 'Request body did not arrive within %s ms' },
  // inspection
  ERR_INSPECT_NOT_FOUND: {
    status: 404,
    message: 'Inspection record %s does not exist or was evicted',
  },
  // control plane
  ERR_API_BAD_REQUEST: { status: 400, message: '%s' },
  ERR_API_VALIDATION: { status: 400, message: 'Invalid request: %s' },
  ERR_API_UNAUTHORIZED: { status: 401, message: 'Missing or invalid credentials' },
  ERR_API_FORBIDDEN: { status: 403, message: 'Not allowed: %s' },
  ERR_API_NOT_FOUND: { status: 404, message: '%s not found' },
  ERR_API_METHOD_NOT_ALLOWED: { status: 405, message: 'Method %s is not allowed on %s' },
  ERR_API_CONFLICT: { status: 409, message: '%s' },
  ERR_API_PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'Request body is larger than the limit of %s bytes',
  },
  ERR_API_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'Unsupported content type %s: expected %s',
  },
  ERR_API_UNPROCESSABLE: { status: 422, message: '%s' },
  ERR_API_RATE_LIMITED: { status: 429, message: 'Too many requests' },
  ERR_API_UNAVAILABLE: { status: 503, message: '%s' },
  // persistence and deployment
  ERR_STORE_FAILED: { status: 500, message: 'Storage failure: %s' },
  ERR_DEPLOY_FAILED: { status: 500, message: 'Deployment failed: %s' },
  // anything unexpected; the original goes to the log, never into a response body
  ERR_INTERNAL: { status: 500, message: 'Internal error' },
  // A response template's helper failed on a request
  ERR_SERVE_TEMPLATE: { status: 500, message: 'Template helper %s failed: %s' },
  // a response template stopped at one of the bounds of docs/limits.md
  ERR_SERVE_TEMPLATE_LIMIT: { status: 500, message: 'Template %s stopped at a limit: %s' },
  ERR_SERVE_SCENARIO_UNAVAILABLE: { status: 503, message: 'Scenario state is unavailable: %s' },
  // a request sent on a tenant's behalf (runner step, proxy, webhook, notification) to a destination the egress policy refuses
  ERR_NET_EGRESS_REFUSED: { status: 502, message: 'Refused by the egress policy "%s": %s' },
} as const satisfies Record<string, { status: number; message: string }>

/** A stable error code, such as `ERR_DSL_INVALID`. */
export type ErrorCode = keyof typeof codes

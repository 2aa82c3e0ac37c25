/**
 * The HTTP kit every server of the product is built with (docs/architecture.md, "HTTP kit"): the
 * router and its 404/405 answers, the JSON writer and body readers, integer parameters, the
 * dashboard's static files with their security headers, and the live-update event stream. Each
 * server keeps only what is its own: its envelope, its authentication, its routes. It imports
 * only src/errors and src/net, so that the runtime (src/serve) and the control plane (src/api)
 * may both use it.
 */
export { dispatch, type Dispatch } from './dispatch.js'
export {
  createRouter,
  splitUrl,
  methodNotAllowed,
  unrouted,
  errorHeaders,
  MethodNotAllowedError,
  type Router,
} from './router.js'
export {
  writeJson,
  writeRaw,
  readJson,
  readSmallJson,
  mediaTypeOf,
  isJsonType,
  JSON_TYPE,
  type JsonResponse,
} from './json.js'
export { pathInt, queryInt } from './params.js'
export { StaticAssets, SECURITY_HEADERS, defaultUiDir, type StaticAssetsOptions } from './static.js'
export {
  PolledEventStream,
  eventText,
  pollFeed,
  feedReplay,
  type PolledEventStreamOptions,
  type FeedCursor,
  type FeedStep,
} from './event-stream.js'

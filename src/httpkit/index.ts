/**
 * The HTTP kit every server of the product is built with (docs/architecture.md, "HTTP kit"): the
 * router and its 404/405 answers, the JSON writer and body readers, integer parameters, the
 * dashboard's static files with their security headers, and the live-update event stream. Each
 * server keeps only what is its own: its envelope, its authentication, its routes. It imports
 * only src/errors and src/net, so that the runtime (src/serve) and the control plane (src/api)
 * may both use it.
 */
export { dispatch } from './dispatch.js'
export { createRouter, splitUrl, unrouted, errorHeaders } from './router.js'
export { writeJson, writeRaw, readJson, readSmallJson, mediaTypeOf, JSON_TYPE } from './json.js'
export { pathInt, queryInt } from './params.js'
export { StaticAssets, SECURITY_HEADERS, defaultUiDir } from './static.js'
export { PolledEventStream, pollFeed, feedReplay } from './event-stream.js'

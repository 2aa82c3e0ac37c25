/**
 * A leaf shared by the runtime (`serve`) and the control plane (`api`, `cli`): the HTTP plumbing
 * (and the time slicing of long loops on the event loop) both need and neither may import from the other (DESIGN.md section 2). It imports only
 * src/errors.
 */
export { readBodyWithin } from './body.js'
export { listenOn, describeListenError } from './listen.js'
export { timeSlicer } from './time-slice.js'

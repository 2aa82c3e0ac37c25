export { codes, type ErrorCode } from './codes.js'
export {
  UnderstudyError,
  createError,
  isUnderstudyError,
  toUnderstudyError,
  describeError,
  formatDetail,
  type ErrorDetail,
} from './understudy-error.js'
export {
  toProblem,
  toEnvelopeError,
  v1Envelope,
  v4Envelope,
  monitoringEnvelope,
  PROBLEM_CONTENT_TYPE,
} from './envelope.js'
export { formatCount } from './count.js'
export { toWireError, fromWireError, type WireError } from './remote.js'

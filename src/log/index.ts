export {
  createLogger,
  createSilentLogger,
  logFormats,
  resolveLogFormat,
  type Logger,
  type LogLevel,
} from './logger.js'
export { LogRing } from './log-ring.js'

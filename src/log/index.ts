export {
  createLogger,
  createSilentLogger,
  resolveLogFormat,
  type Logger,
  type LogLevel,
} from './logger.js'
export { LogRing } from './log-ring.js'

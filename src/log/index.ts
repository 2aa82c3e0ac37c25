export { createLogger, createSilentLogger, logLevels, type Logger, type LogLevel, type LoggerOptions } from './logger.js'
export { LogRing } from './log-ring.js'

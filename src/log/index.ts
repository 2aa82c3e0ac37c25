export { createLogger, createSilentLogger, logLevels, logFormats, resolveLogFormat, type Logger, type LogLevel, type LoggerOptions, type LogFormat } from './logger.js'
export { LogRing } from './log-ring.js'

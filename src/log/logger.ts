import { pino, type Logger, type DestinationStream, type StreamEntry } from 'pino'
import type { LogRing } from './log-ring.js'

export type { Logger } from 'pino'

/** Log levels accepted by `--log-level`. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

export interface LoggerOptions {
  level: LogLevel
  /** Where lines go; default standard error, so that standard output carries only `listening on`. */
  destination?: DestinationStream | 'stderr' | 'stdout'
  /** Also keep the lines in this ring, for log snapshots. */
  ring?: LogRing
  /** Fields on every line, such as `{ mockId: 3 }`. */
  base?: Record<string, unknown>
}

/** Serializers shared by every logger (fastify's shapes): small, and never bodies. */
const serializers = {
  req: (req: { method?: string; url?: string; socket?: { remoteAddress?: string } }) => ({
    method: req.method,
    url: req.url,
    remoteAddress: req.socket?.remoteAddress,
  }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
  err: pino.stdSerializers.err,
}

/**
 * The root logger. Library code receives it as a parameter and never imports a global one.
 *
 * @example
 * const log = createLogger({ level: 'info' })
 * log.info({ transactions: 12 }, 'mock compiled')
 */
export function createLogger (options: LoggerOptions): Logger {
  const destination = options.destination ?? 'stderr'
  const main: DestinationStream = destination === 'stderr'
    ? pino.destination({ fd: 2, sync: true })
    : destination === 'stdout'
      ? pino.destination({ fd: 1, sync: true })
      : destination
  const streams: StreamEntry[] = [{ stream: main, level: options.level === 'silent' ? 'fatal' : options.level }]
  if (options.ring !== undefined) streams.push({ stream: options.ring, level: 'trace' })
  return pino(
    { level: options.level, base: options.base ?? null, serializers },
    pino.multistream(streams),
  )
}

/** A logger that writes nothing: for tests, benchmarks and embedding. */
export function createSilentLogger (): Logger {
  return pino({ level: 'silent' })
}

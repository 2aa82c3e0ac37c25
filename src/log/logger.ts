import { createRequire } from 'node:module'
import { pino, type Logger, type DestinationStream, type StreamEntry } from 'pino'
import type { LogRing } from './log-ring.js'

export type { Logger } from 'pino'

/** Log levels accepted by `--log-level`. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

interface LoggerOptions {
  level: LogLevel
  /** Where lines go; default standard error, so that standard output carries only `listening on`. */
  destination?: DestinationStream | 'stderr' | 'stdout'
  /** Also keep the lines in this ring, for log snapshots. */
  ring?: LogRing
  /** Fields on every line, such as `{ mockId: 3 }`. */
  base?: Record<string, unknown>
  /**
   * `json` (default): one JSON object a line, for machines. `pretty`: a readable line for a person
   * at a terminal (pino-pretty, loaded only then), for the standard streams only.
   */
  format?: LogFormat
}

/** How log lines look; `auto` is decided by `resolveLogFormat`. */
export const logFormats = ['auto', 'json', 'pretty'] as const
type LogFormat = 'json' | 'pretty'

/**
 * `auto` is `pretty` when the stream is a terminal, `json` otherwise (a pipe, a file, a container
 * log collector).
 *
 * @example
 * resolveLogFormat('auto', process.stderr) // 'pretty' in a terminal
 */
export function resolveLogFormat(
  format: (typeof logFormats)[number],
  stream: { isTTY?: boolean },
): LogFormat {
  if (format !== 'auto') return format
  return stream.isTTY === true ? 'pretty' : 'json'
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
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? 'stderr'
  const main: DestinationStream =
    typeof destination === 'string' && options.format === 'pretty'
      ? prettyStream(destination === 'stderr' ? 2 : 1)
      : destination === 'stderr'
        ? pino.destination({ fd: 2, sync: true })
        : destination === 'stdout'
          ? pino.destination({ fd: 1, sync: true })
          : destination
  const streams: StreamEntry[] = [
    { stream: main, level: options.level === 'silent' ? 'fatal' : options.level },
  ]
  if (options.ring !== undefined) streams.push({ stream: options.ring, level: 'trace' })
  return pino(
    { level: options.level, base: options.base ?? null, serializers },
    pino.multistream(streams),
  )
}

/** pino-pretty on a file descriptor, synchronous like the JSON destination (nothing lost at exit). */
function prettyStream(fd: number): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: Record<string, unknown>,
  ) => DestinationStream
  const colorize = (fd === 2 ? process.stderr : process.stdout).isTTY === true
  return pretty({
    destination: fd,
    sync: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  })
}

/** A logger that writes nothing: for tests, benchmarks and embedding. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' })
}

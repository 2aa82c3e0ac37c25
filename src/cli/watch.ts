import chokidar from 'chokidar'
import type { Logger } from '../log/index.js'

/** Milliseconds of quiet before a burst of file events triggers one reload. */
const SETTLE_MS = 120

/**
 * Watches files and directories with chokidar and calls `reload` once per burst of changes
 * (editors write files in several steps). Dot-entries and node_modules are ignored.
 *
 * @example
 * const watcher = watchSources(['mocks'], () => reloadEverything(), log)
 * await watcher.close()
 */
export function watchSources(
  paths: readonly string[],
  reload: () => void,
  log: Logger,
): { close: () => Promise<void> } {
  const watcher = chokidar.watch([...paths], {
    ignoreInitial: true,
    ignored: (path: string) => /(^|[/\\])(\.[^/\\]+|node_modules)([/\\]|$)/.test(path),
    awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
  })
  let timer: NodeJS.Timeout | null = null
  watcher.on('all', (event, path) => {
    log.debug({ event, path }, 'file changed')
    if (timer !== null) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      reload()
    }, SETTLE_MS)
  })
  watcher.on('error', (err) => log.warn({ err }, 'watch error'))
  // Changes made before the initial scan ends are part of that scan, not events: say when
  // watching has really begun.
  watcher.on('ready', () => log.info({ paths }, 'watching'))
  return {
    close: async () => {
      if (timer !== null) clearTimeout(timer)
      await watcher.close()
    },
  }
}

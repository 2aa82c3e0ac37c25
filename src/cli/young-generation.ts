import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
import type { Logger } from '../log/index.js'
import { exposedGc, LARGE_DOCUMENT } from './startup-garbage.js'

/**
 * The launch flags that size V8's young generation (semi-spaces). V8 accepts `_` for `-` in a
 * flag's name, and `--no-` forms do not exist for these.
 */
const SEMI_SPACE_FLAG =
  /^--(?:max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/

/**
 * How often the young generation is looked at while it is larger than a small runtime's. V8
 * shrinks it at a young-generation collection when less than 1 KB/ms was allocated since the
 * previous collection (over about the last five seconds: Node 20.20, V8 11.3); a runtime's first
 * requests allocate enough to keep it from agreeing at the first look, and each look's collection
 * starts the next measure, so the next look, once the runtime has been quiet, finds it agreeing.
 */
const CHECK_EVERY_MS = 6_000
/**
 * The young generation a 100-transaction runtime settles at (two 8 MiB semi-spaces). A larger one
 * was grown by start-up's allocation, or by a load that has since stopped.
 */
const SMALL_RUNTIME_YOUNG_GENERATION = 16 * 1024 * 1024

/**
 * What is done about the young generation once a runtime of that many transactions listens, or
 * has swapped them in.
 */
export type YoungGenerationPlan =
  /** Smaller mocks: start-up did not grow it past a small runtime's size. */
  | 'v8-default'
  /** The user sized it at launch (`--max-semi-space-size` and the like): theirs to decide. */
  | 'launch-flags'
  /** Collected while idle, so that V8 gives back what start-up grew. */
  | 'shrink-when-idle'

/**
 * The plan for a runtime serving `transactions` transactions, started with `launchFlags` (Node's
 * `execArgv` and the words of `NODE_OPTIONS`).
 *
 * @example
 * youngGenerationPlan(10_000, ['--max-semi-space-size=4']) // 'launch-flags'
 */
export function youngGenerationPlan(
  transactions: number,
  launchFlags: readonly string[],
): YoungGenerationPlan {
  if (transactions < LARGE_DOCUMENT) return 'v8-default'
  if (sizedAtLaunch(launchFlags)) return 'launch-flags'
  return 'shrink-when-idle'
}

/** V8's own factor (Node 20.20, V8 11.3), put back once start-up is done. */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2

/** How many starts hold the young generation now (tests start several runtimes in one process). */
let holding = 0

/**
 * Runs `start` (a command that reads a document and starts a runtime, resolving once it listens)
 * with V8 kept from growing the young generation. Reading and compiling a document allocate
 * objects that all live, and V8 grows the young generation after each collection that finds
 * enough of it alive: at 10,000 transactions start-up took it to its maximum, two 16 MiB
 * semi-spaces, 28 MiB more RSS at the `listening on` line for nothing, since what start-up
 * allocates ends in the old generation anyway (bench/README.md). V8 reads the semi-space sizes
 * only when the heap is set up, but the growth factor at each growth, so a factor of 1 holds the
 * young generation where it is; V8's own factor is put back once `start` resolves (or fails; the
 * last of overlapping starts puts it back), and requests grow it as they need, as before.
 * Nothing is held when the launch flags size the young generation: theirs to decide.
 *
 * A cap for good (a factor of 1 whenever the young generation is at 16 MiB) was tried: 8 to 16 MiB
 * less RSS under a sustained load, but 4 to 5 % more CPU per GET at 100 and 10,000 transactions.
 *
 * @example
 * await withYoungGenerationHeld(() => runRunCommand(args, io)) // held until it listens
 */
export async function withYoungGenerationHeld<T>(
  start: () => Promise<T>,
  launchFlags: readonly string[] = processLaunchFlags(),
): Promise<T> {
  if (sizedAtLaunch(launchFlags)) return await start()
  if (holding++ === 0) setFlagsFromString('--semi-space-growth-factor=1')
  try {
    return await start()
  } finally {
    if (--holding === 0) {
      setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`)
    }
  }
}

/** Whether the launch flags size the young generation: then it is the user's to decide. */
function sizedAtLaunch(launchFlags: readonly string[]): boolean {
  return launchFlags.some((flag) => SEMI_SPACE_FLAG.test(flag))
}

/** This process's launch flags: `execArgv` and `NODE_OPTIONS`. */
function processLaunchFlags(): string[] {
  const fromEnv = (process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((w) => w !== '')
  return [...process.execArgv, ...fromEnv]
}

/**
 * The check that gives back the young generation, once started: one per process. It is never
 * cleared, not even when a small document is swapped in afterwards: the young generation a large
 * one grew is still there to give back, each look costs one reading of V8's heap statistics every
 * 6 s and no collection once the young generation is a small runtime's size, and a later large
 * swap finds it running.
 */
let settling: NodeJS.Timeout | null = null

/**
 * Once a runtime of `transactions` transactions listens, and after every swap of its
 * configuration (`PUT /config`, `--watch`, the WireMock admin API's stubs): gives back the young
 * generation that compiling a large document grew. Start-up, or a swap, allocates hundreds of MiB
 * that all live (the parsed JSON, the normalized document, the compiled form), so V8 grows the
 * young generation to its largest (two 16 MiB semi-spaces) and keeps it: RSS that a runtime
 * idling or under a light load never needs. V8 11.3 reads the semi-space size flags only when the
 * heap is set up, so they cannot cap it afterwards; what it does is shrink the young generation at
 * a young-generation collection when allocation has been quiet for a few seconds, and an idle
 * runtime makes no collection. So one is made every few seconds while the young generation is
 * larger than a small runtime's: under load V8 declines (and grows it as the load needs, as
 * usual), once quiet it shrinks it. A timer only: nothing on the request path. Calling it again
 * starts nothing more: the one check serves every document the process serves.
 *
 * @example
 * settleYoungGeneration(runtime.current().matcher.transactions.length, log)
 */
export function settleYoungGeneration(
  transactions: number,
  log: Logger,
  launchFlags: readonly string[] = processLaunchFlags(),
): void {
  if (settling !== null) return
  if (youngGenerationPlan(transactions, launchFlags) !== 'shrink-when-idle') return
  const check = (): void => {
    if (youngGenerationSize() > SMALL_RUNTIME_YOUNG_GENERATION) exposedGc()?.({ type: 'minor' })
  }
  settling = setInterval(check, CHECK_EVERY_MS).unref()
  log.debug({ transactions, everyMs: CHECK_EVERY_MS }, 'young generation settling started')
}

/** Bytes the young generation holds from the system now. */
function youngGenerationSize(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0
}

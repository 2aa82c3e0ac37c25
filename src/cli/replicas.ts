import type { RuntimeOptions } from '../config/index.js'
import type { MockServiceDocument } from '../dsl/index.js'
import type { Logger, LogRing } from '../log/index.js'
import {
  clusterAdminTarget,
  clusterWireMockHost,
  ReplicaSet,
  startAdmin,
  type AdminServer,
} from '../serve/index.js'
import { loadHarImporter, wireMockAdminOf, writeReadyLines } from './lifecycle.js'
import { UsageError } from './usage-error.js'
import { settleYoungGeneration } from './young-generation.js'

/** Most replicas `--replicas` accepts. */
const MAX_REPLICAS = 64

/**
 * `--replicas N`: an integer from 1 to 64, default 1.
 *
 * @example
 * replicasOf('4') // 4
 */
export function replicasOf(raw: string | undefined): number {
  if (raw === undefined) return 1
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_REPLICAS) {
    throw new UsageError(`--replicas must be an integer from 1 to ${MAX_REPLICAS}, not "${raw}"`)
  }
  return Number(raw)
}

/** A started cluster: its replicas and the primary's admin listener. */
interface ReplicatedServing {
  set: ReplicaSet
  admin: AdminServer | null
  /** Drains every replica and closes the admin listener; idempotent. */
  stop: () => Promise<void>
}

interface StartReplicatedParams {
  document: MockServiceDocument
  options: Readonly<RuntimeOptions>
  replicas: number
  log: Logger
  logRing: LogRing | null
  /** The `run` command line, which the replicas run again (Node's cluster tells them they are replicas). */
  args: readonly string[]
  out: NodeJS.WritableStream
  /** The `__files/` folders where a stub's `bodyFileName` sent through the WireMock admin API is read. */
  wiremockFiles?: readonly string[]
}

/**
 * The primary of `understudy run --replicas N` (N > 1): starts the replicas, then the admin
 * listener over them, then writes the ready lines once, after every replica listens.
 */
export async function startReplicated(params: StartReplicatedParams): Promise<ReplicatedServing> {
  const { options, log } = params
  const set = new ReplicaSet({
    document: params.document,
    options,
    replicas: params.replicas,
    log,
    args: params.args,
    // Compiling a large document swapped in grows the primary's young generation as start-up does.
    onSwap: (transactions) => settleYoungGeneration(transactions, log),
  })
  // WireMock's admin API is answered here, the owner of the stubs: the replicas forward the calls
  // they receive on the shared mock port, and the admin port answers them directly.
  const wiremock = wireMockAdminOf(clusterWireMockHost(set), options, log, params.wiremockFiles)
  if (wiremock !== null) set.answerWireMock(wiremock.answer)
  await set.start()
  let admin: AdminServer | null = null
  if (options.adminPort !== undefined && options.adminPort !== null) {
    try {
      admin = await startAdmin({
        target: clusterAdminTarget(set, params.logRing, loadHarImporter),
        host: options.adminHost,
        port: options.adminPort,
        token: options.adminToken ?? null,
        log,
        wiremock: wiremock?.onAdminPort ?? null,
      })
    } catch (err) {
      await set.stop()
      throw err
    }
  }
  writeReadyLines(params.out, set.urls, admin?.url ?? null)
  // The primary read and parsed the document too, and holds it for the replicas.
  settleYoungGeneration(params.document.transactions.length, log)
  log.info(
    {
      urls: set.urls,
      admin: admin?.url ?? null,
      replicas: params.replicas,
      transactions: params.document.transactions.length,
    },
    'listening',
  )
  let stopping: Promise<void> | null = null
  return {
    set,
    admin,
    stop: () => {
      stopping ??= Promise.all([set.stop(), admin?.close()]).then(() => {})
      return stopping
    },
  }
}

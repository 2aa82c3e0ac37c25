// The platform for bench/monitor-schedules.ts: `understudy platform` in-process with the schedule
// divisor of BENCH_SCHEDULE_SCALE (a "1m" schedule fires every 60 / scale seconds), logging off.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPlatform } from '../../src/cli/platform.js'
import { createSilentLogger } from '../../src/log/index.js'

const platform = await startPlatform(
  {
    host: '127.0.0.1',
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'understudy-bench-monitor-')),
    runtimeHost: '127.0.0.1',
    apiKeyId: process.env['BENCH_KEY_ID'] ?? 'bench-key',
    apiKeySecret: process.env['BENCH_KEY_SECRET'] ?? 'bench-secret-0123456789',
    jsonLimit: 1024 * 1024,
    uploadLimit: 1024 * 1024,
    monitor: { scheduleScale: Number(process.env['BENCH_SCHEDULE_SCALE'] ?? 1) },
  },
  createSilentLogger(),
)
process.stdout.write(`listening on ${platform.url}\n`)
process.on('SIGTERM', () => {
  platform.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})

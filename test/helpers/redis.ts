import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'
import { waitFor } from './wait.js'

/** Debian's `redis-server` (`apt-get install redis-server`); .ci/run installs it when missing. */
const REDIS_SERVER = process.env['UNDERSTUDY_REDIS_SERVER'] ?? 'redis-server'
export const hasRedis = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).status === 0
export const REDIS_SKIP_REASON = `${REDIS_SERVER} not found: install Debian's redis-server (apt-get install -y redis-server), or set UNDERSTUDY_REDIS_SERVER, to run the shared scenario-store tests`

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A real Redis on loopback with no persistence, stopped when the test finishes: its `redis://` URL. */
export async function startRedis(): Promise<{ url: string; port: number }> {
  const port = await freePort()
  const child = spawn(
    REDIS_SERVER,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString()
  })
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  await waitFor(
    () => out.includes('Ready to accept connections') || child.exitCode !== null,
    'redis-server to start',
    { timeoutMs: 10_000, intervalMs: 20 },
  )
  if (child.exitCode !== null) throw new Error(`redis-server exited: ${out}`)
  return { url: `redis://127.0.0.1:${port}`, port }
}

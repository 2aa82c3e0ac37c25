import { randomBytes } from 'node:crypto'
import { expect, onTestFinished } from 'vitest'
import { startPlatform, type Platform } from '../../../src/cli/platform.js'
import { createSilentLogger } from '../../../src/log/index.js'
import type { RunOptions } from '../../../src/monitor/index.js'
import { testStoreOf } from '../../helpers/test-store.js'
import { tempDir } from '../../helpers/temp-dir.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies loosely and assert their shape
type Loose = any

/** The monitoring envelope. */
export interface MonitorBody<T = Loose> {
  data: T
  meta: { status: string }
  error: {
    status: number
    message: string
    code?: string
    details?: Array<{ path: string; message: string }>
  } | null
}

/** A platform started in this process on 127.0.0.1:0, with an application and its personal token. */
export interface MonitorPlatform {
  platform: Platform
  url: string
  basic: string
  /** Personal access token of the bootstrap user (every scope). */
  token: string
  clientId: string
  clientSecret: string
  teamId: string
  /** Moves the monitoring clock (authorization codes) forward. */
  advance: (ms: number) => void
  call: <T = Loose>(
    method: string,
    path: string,
    init?: { json?: unknown; token?: string | null; headers?: Record<string, string> },
  ) => Promise<{ status: number; body: MonitorBody<T>; headers: Headers }>
  /** Creates a bucket and returns its key. */
  bucket: (name?: string) => Promise<string>
  /** The data dir and the API key secret, to restart a platform on the same data (schedules surviving a restart). */
  dataDir: string
  apiKeySecret: string
}

export async function startMonitorPlatform(
  options: {
    scheduleScale?: number
    smtpUrl?: string
    resultRetention?: number
    dataDir?: string
    apiKeySecret?: string
    /** How long a run's lease lasts unless renewed (agents' runs; default 30 s). */
    leaseMs?: number
    /** How long a run waits for agents that are not there before it fails (default 5 min). */
    runWaitMs?: number
    /** Runner options (a pause step's `sleep`). */ run?: RunOptions
  } = {},
): Promise<MonitorPlatform> {
  const dataDir = options.dataDir ?? tempDir('understudy-monitor-')
  // The same store for the same data dir: a restarted platform finds its records again.
  const store = await testStoreOf(dataDir)
  const apiKeyId = 'monitor-test-key'
  const apiKeySecret = options.apiKeySecret ?? randomBytes(16).toString('hex')
  let offset = 0
  const platform = await startPlatform(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      ...(store === undefined ? {} : { store }),
      runtimeHost: '127.0.0.1',
      apiKeyId,
      apiKeySecret,
      jsonLimit: 1024 * 1024,
      uploadLimit: 1024 * 1024,
      monitor: {
        now: () => Date.now() + offset,
        ...(options.scheduleScale === undefined ? {} : { scheduleScale: options.scheduleScale }),
        ...(options.smtpUrl === undefined ? {} : { smtpUrl: options.smtpUrl }),
        ...(options.resultRetention === undefined
          ? {}
          : { resultRetention: options.resultRetention }),
        ...(options.run === undefined ? {} : { run: options.run }),
        ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
        ...(options.runWaitMs === undefined ? {} : { runWaitMs: options.runWaitMs }),
      },
    },
    createSilentLogger(),
  )
  onTestFinished(async () => await platform.close())
  const basic = `Basic ${Buffer.from(`${apiKeyId}:${apiKeySecret}`).toString('base64')}`
  const call: MonitorPlatform['call'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers }
    if (init.token !== null && headers['authorization'] === undefined) {
      headers['authorization'] = `Bearer ${init.token ?? token}`
    }
    if (init.json !== undefined) headers['content-type'] ??= 'application/json'
    const res = await fetch(platform.url + path, {
      method,
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    })
    const text = await res.text()
    return {
      status: res.status,
      headers: res.headers,
      body: (text === '' ? null : JSON.parse(text)) as MonitorBody<Loose>,
    }
  }
  let token = ''
  const app = await call('POST', '/apps', {
    token: null,
    headers: { authorization: basic },
    json: {
      name: 'CI',
      website_url: 'https://ci.example.com',
      callback_url: 'https://ci.example.com/callback',
    },
  })
  expect(app.status).toBe(201)
  token = app.body.data.access_token
  const account = await call('GET', '/account')
  expect(account.status).toBe(200)
  const teamId = account.body.data.teams[0].id as string
  return {
    platform,
    url: platform.url,
    basic,
    token,
    clientId: app.body.data.client_id,
    clientSecret: app.body.data.client_secret,
    teamId,
    dataDir,
    apiKeySecret,
    advance: (ms) => {
      offset += ms
    },
    call,
    bucket: async (name = 'checks') => {
      const res = await call(
        'POST',
        `/buckets?name=${encodeURIComponent(name)}&team_uuid=${teamId}`,
      )
      expect(res.status).toBe(201)
      return res.body.data.key as string
    },
  }
}

/** Asserts the product's error shape and returns the message. */
export function expectMonitorError(
  res: { status: number; body: MonitorBody },
  status: number,
): string {
  expect(res.status).toBe(status)
  expect(res.body.data).toEqual({})
  expect(res.body.meta).toEqual({ status: 'error' })
  expect(res.body.error?.status).toBe(status)
  expect(typeof res.body.error?.message).toBe('string')
  return res.body.error?.message ?? ''
}

import http from 'node:http'
import { SMTPServer } from 'smtp-server'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startMonitorPlatform } from './helpers.js'

async function listen(server: http.Server | SMTPServer): Promise<number> {
  await new Promise<void>((resolve) =>
    (server as http.Server).listen(0, '127.0.0.1', () => resolve()),
  )
  const address =
    (server as http.Server).address?.() ??
    (server as unknown as { server: http.Server }).server.address()
  return typeof address === 'object' && address !== null ? address.port : 0
}

describe('monitoring notifications through the platform', () => {
  it("posts a finished run to the environment's webhook and mails it through --smtp-url", async () => {
    const received: unknown[] = []
    let resolveHook: () => void = () => {}
    const hooked = new Promise<void>((resolve) => {
      resolveHook = resolve
    })
    const hook = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (req.url !== '/hook') {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end('{"ok":true}')
          return
        }
        received.push(JSON.parse(Buffer.concat(chunks).toString()))
        res.end('ok')
        resolveHook()
      })
    })
    const hookPort = await listen(hook)
    onTestFinished(async () => {
      hook.closeAllConnections()
      await new Promise<void>((resolve) => hook.close(() => resolve()))
    })
    const mails: string[] = []
    let resolveMail: () => void = () => {}
    const mailed = new Promise<void>((resolve) => {
      resolveMail = resolve
    })
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          mails.push(Buffer.concat(chunks).toString())
          callback()
          resolveMail()
        })
      },
    })
    const smtpPort = await listen(smtp)
    onTestFinished(async () => await new Promise<void>((resolve) => smtp.close(() => resolve())))

    const m = await startMonitorPlatform({ smtpUrl: `smtp://127.0.0.1:${smtpPort}` })
    const key = await m.bucket()
    const test = (
      await m.call('POST', `/buckets/${key}/tests`, {
        json: {
          name: 'notified',
          steps: [
            { step_type: 'request', method: 'GET', url: `http://127.0.0.1:${hookPort}/target` },
          ],
        },
      })
    ).body.data
    const env = await m.call(
      'PUT',
      `/buckets/${key}/tests/${test.id}/environments/${test.default_environment_id}`,
      {
        json: {
          webhooks: [`http://127.0.0.1:${hookPort}/hook`],
          emails: {
            notify_all: true,
            notify_on: 'all',
            recipients: [{ email: 'qa@example.com', name: 'QA' }],
          },
        },
      },
    )
    expect(env.status).toBe(200)
    const trigger = await fetch(test.trigger_url)
    expect(trigger.status).toBe(201)
    await Promise.race([
      Promise.all([hooked, mailed]),
      new Promise((_resolve, reject) =>
        setTimeout(() => reject(new Error('no notification within 10 s')), 10_000),
      ),
    ])
    expect(received[0]).toMatchObject({
      test_id: test.id,
      bucket_key: key,
      test_run_url: expect.stringContaining(`/buckets/${key}/tests/${test.id}/results/`),
    })
    expect(mails[0]).toContain('qa@example.com')
    expect(mails[0]).toContain('notified')
  })
})

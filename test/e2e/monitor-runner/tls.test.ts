import { createServer, type Server } from 'node:https'
import type { TLSSocket } from 'node:tls'
import type { AddressInfo } from 'node:net'
import selfsigned from 'selfsigned'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  resolveEnvironment,
  runTest,
  type EnvironmentDoc,
  type TestRunResult,
} from '../../../src/monitor/index.js'

let server: Server
let url = ''
let clientPem = ''

async function pem(commonName: string): Promise<{ cert: string; key: string }> {
  const made = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  })
  return { cert: made.cert, key: made.private }
}

beforeAll(async () => {
  const serverPem = await pem('localhost')
  const client = await pem('monitor-client')
  clientPem = `${client.cert}\n${client.key}`
  // The server asks for a client certificate and reports the one it got (any is accepted).
  server = createServer(
    { ...serverPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ client: peer.subject?.CN ?? null }))
    },
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

async function call(env: EnvironmentDoc): Promise<TestRunResult> {
  return await runTest({
    test: {
      id: 'tls',
      name: 'tls',
      steps: [
        {
          step_type: 'request',
          url,
          variables: [{ name: 'client', source: 'response_json', property: 'client' }],
        },
      ],
    },
    environment: resolveEnvironment([env]),
    testRunId: 'tls',
  })
}

describe('runTest over TLS', () => {
  it('refuses a self-signed certificate unless verify_ssl is false', async () => {
    const strict = await call({ verify_ssl: true })
    expect(strict.requests[0]).toMatchObject({
      result: 'fail',
      error: expect.stringMatching(/^the request failed: .*certificate/i) as unknown,
    })
    const lenient = await call({ verify_ssl: false })
    expect(lenient.requests[0]?.result).toBe('pass')
    expect(lenient.variables['client']).toBe('null')
  })

  it('presents the environment client certificate', async () => {
    const result = await call({ verify_ssl: false, client_certificate: clientPem })
    expect(result.requests[0]?.result).toBe('pass')
    expect(result.variables['client']).toBe('monitor-client')
  })
})

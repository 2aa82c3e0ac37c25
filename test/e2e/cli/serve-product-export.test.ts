import { copyFileSync } from 'node:fs'
import { request } from 'node:http'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../../helpers/cli.js'
import { tempDir } from '../../helpers/temp-dir.js'

const exportFile = resolve(import.meta.dirname, '../../unit/fixtures/product-export.json')
const xml = { 'content-type': 'application/xml' }

/** Sends one request and records when each body chunk arrived (ms after the headers). */
async function timedChunks(
  url: string,
  method: string,
  body: string,
): Promise<{ status: number; text: string; arrivals: number[] }> {
  return new Promise((_resolve, reject) => {
    const req = request(url, { method, headers: xml }, (res) => {
      const start = Date.now()
      const arrivals: number[] = []
      let text = ''
      res.on('data', (chunk: Buffer) => {
        arrivals.push(Date.now() - start)
        text += chunk.toString()
      })
      res.on('end', () => _resolve({ status: res.statusCode ?? 0, text, arrivals }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('serve and import load the product export unedited', () => {
  it('serves every DSL field: statusCodeConditions, namespaces, XSD, CDATA, dribbled', async () => {
    const dir = tempDir()
    copyFileSync(exportFile, join(dir, 'export.json'))
    const server = await startCli(['serve', join(dir, 'export.json'), '--port', '0'])
    const order = (id: string): string =>
      `<p:order xmlns:p="urn:orders"><p:id>${id}</p:id></p:order>`

    const created = await fetch(`${server.url}/orders`, {
      method: 'POST',
      headers: xml,
      body: order('7'),
    })
    expect(created.status).toBe(201)
    expect(created.statusText).toBe('Created')
    expect(await created.text()).toBe('<created/>')
    const conflict = await fetch(`${server.url}/orders`, {
      method: 'POST',
      headers: xml,
      body: order('9'),
    })
    expect(conflict.status).toBe(409)
    expect(conflict.statusText).toBe('Conflict')
    expect(conflict.headers.get('x-order')).toBe('7')

    const cdata = await fetch(`${server.url}/soap`, {
      method: 'POST',
      headers: xml,
      body: '<envelope><payload><![CDATA[<inner><code>A1</code></inner>]]></payload></envelope>',
    })
    expect(await cdata.text()).toBe('cdata matched')

    const invalid = await fetch(`${server.url}/orders`, {
      method: 'PUT',
      headers: xml,
      body: '<order><id>x</id></order>',
    })
    expect(invalid.status).toBe(404)
    const dribbled = await timedChunks(`${server.url}/orders`, 'PUT', '<order><id>3</id></order>')
    expect(dribbled.status).toBe(200)
    expect(dribbled.text).toBe('valid')
    // 3 chunks spread over 300 ms: the first after about 100 ms, the last after about 300 ms
    expect(dribbled.arrivals.length).toBeGreaterThanOrEqual(2)
    expect(dribbled.arrivals.at(-1) ?? 0).toBeGreaterThanOrEqual(150)
  })

  it('imports the export without an edit', async () => {
    const result = await runCli(['import', exportFile])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('statusCodeConditions')
    expect(result.stdout).toContain('matches_xml_cdata')
  })
})

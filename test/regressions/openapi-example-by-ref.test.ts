import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

/*
 * An OpenAPI example given by reference, `value: {$ref: '#/components/examples/issue'}` (29
 * operations of GitHub's description), was served as the literal `{"$ref": ...}` object. The mock
 * answers the example the reference points at.
 */

const description = `
openapi: 3.0.3
info: { title: issues, version: '1' }
paths:
  /repos/{owner}/{repo}/issues/{issue_number}:
    get:
      responses:
        '200':
          description: an issue
          content:
            application/json:
              schema: { $ref: '#/components/schemas/issue' }
              examples:
                default: { value: { $ref: '#/components/examples/issue' } }
components:
  schemas:
    issue: { type: object, properties: { id: { type: integer }, title: { type: string } } }
  examples:
    issue:
      summary: An issue
      value: { id: 1347, title: Found a bug, state: open }
`

describe('openapi: an example given by $ref', () => {
  it(
    'is served as the example it refers to, never as the $ref object',
    { timeout: 30_000 },
    async () => {
      const dir = tempDir()
      const file = join(dir, 'issues.yaml')
      writeFileSync(file, description)
      const server = await startCli(['serve', file, '--port', '0'])
      const res = await fetch(`${server.url}/repos/octocat/hello/issues/1347`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual({ id: 1347, title: 'Found a bug', state: 'open' })
    },
  )
})

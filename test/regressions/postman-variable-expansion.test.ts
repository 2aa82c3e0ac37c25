import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/temp-dir.js'

// Defect: Postman `{{variables}}` referring to others several times multiplied without bound
// (five levels of ten references each turn 1 KB into 100 MB). One value's expansion is now bounded
// and the import fails with a message naming the limit.

function collection(fanOut: number): unknown {
  const variable = [{ key: 'v0', value: 'x'.repeat(1000) }]
  for (let i = 1; i <= 4; i++) {
    variable.push({ key: `v${i}`, value: `{{v${i - 1}}}`.repeat(fanOut) })
  }
  return {
    info: {
      name: 'expanding',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    variable,
    item: [
      {
        name: 'one',
        request: {
          method: 'GET',
          url: { raw: 'https://api.example.com/a', host: ['api', 'example', 'com'], path: ['a'] },
        },
        response: [
          {
            name: 'ok',
            code: 200,
            body: '{{v4}}',
            originalRequest: {
              method: 'GET',
              url: {
                raw: 'https://api.example.com/a',
                host: ['api', 'example', 'com'],
                path: ['a'],
              },
            },
          },
        ],
      },
    ],
  }
}

describe('Postman variables expand within a bound', () => {
  it('refuses a collection whose variables expand past 1 MiB, naming the limit', async () => {
    const file = join(tempDir(), 'expanding.postman_collection.json')
    writeFileSync(file, JSON.stringify(collection(10)))
    const result = await runCli(['serve', file, '--port', '0'])
    expect(result.code).not.toBe(0)
    expect(result.stdout + result.stderr).toMatch(
      /expand to more than 1,048,576 characters, the limit/,
    )
  })
})

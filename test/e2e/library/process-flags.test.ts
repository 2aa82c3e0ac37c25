import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const library = resolve(import.meta.dirname, '../../../dist/src/index.js')

// Whether V8's linear-time regex engine is on in a process: the `l` flag exists only then.
const probe = "(() => { try { new RegExp('a', 'l'); return 'on' } catch { return 'off' } })()"

it("importing the library leaves the process's V8 flags alone; creating a mock server turns the regex fallback on", async () => {
  const script = `
    const lib = await import(${JSON.stringify(library)})
    const afterImport = ${probe}
    const server = await lib.createMockServer({ transactions: [] })
    const afterCreate = ${probe}
    await server.close()
    console.log(afterImport, afterCreate)
  `
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--input-type=module',
    '-e',
    script,
  ])
  expect(stdout.trim()).toBe('off on')
})

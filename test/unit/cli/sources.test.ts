import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importFile } from '../../../importers/index.js'
import { collectFiles, givenFiles, loadSources, walkDirectory } from '../../../src/cli/sources.js'
import { thrown } from '../../helpers/errors.js'
import { tempDir } from '../../helpers/temp-dir.js'

// What `serve`, `run` and `import` load from the paths they are given: which files a directory
// scan picks, and how several files become one document, with what is said along the way.
function tree(files: Record<string, string>): string {
  const root = tempDir('understudy-sources-')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}
const extensions = ['.json', '.yaml', '.txt']
const stub = (path: string, text: string) =>
  JSON.stringify({ request: { method: 'GET', url: path }, response: { status: 200, body: text } })
const understudy = (settings: Record<string, unknown>, transactions: unknown[]) =>
  JSON.stringify({ ...settings, transactions })
const txn = (id: number, path: string) => ({
  id,
  name: `t${id}`,
  dsl: { requestDsl: { method: 'GET', path }, responseDsl: { status: 200, text: path } },
})

describe('collectFiles', () => {
  it('refuses a path that does not exist, naming it', () => {
    const err = thrown(() =>
      collectFiles({ paths: ['/no/such/mocks'], include: [], exclude: [], extensions }),
    )
    expect(err.code).toBe('ERR_CONFIG_FILE')
    expect(err.message).toContain('/no/such/mocks')
  })

  it('scans for the extensions, leaving out dot entries, node_modules, bodies and response halves', () => {
    const root = tree({
      'a.json': '{}',
      'notes.md': 'x',
      '.hidden.json': '{}',
      'node_modules/x/b.json': '{}',
      'wiremock/__files/body.json': '{}',
      'pair-req.txt': 'GET / HTTP/1.1\n\n',
      'pair-rsp.txt': 'HTTP/1.1 200 OK\n\n',
      'lonely-rsp.txt': 'HTTP/1.1 200 OK\n\n',
      'sub/c.yaml': '[]',
    })
    const found = collectFiles({ paths: [root], include: [], exclude: [], extensions })
    expect(found.map((f) => f.slice(root.length + 1))).toEqual([
      'a.json',
      'lonely-rsp.txt',
      'pair-req.txt',
      'sub/c.yaml',
    ])
  })

  it('filters a scan by include and exclude globs, and keeps a file named outright', () => {
    const root = tree({ 'a.json': '{}', 'draft-b.json': '{}', 'sub/c.json': '{}' })
    const scanned = collectFiles({
      paths: [root, join(root, 'draft-b.json')],
      include: ['**/*.json'],
      exclude: ['**/draft-*', 'sub/**'],
      extensions,
    })
    expect(scanned.map((f) => f.slice(root.length + 1))).toEqual(['a.json', 'draft-b.json'])
    expect([...givenFiles([root, join(root, 'draft-b.json'), '/no/such'])]).toEqual([
      join(root, 'draft-b.json'),
    ])
  })

  it('does not enter folders deeper than 16 levels', () => {
    const deep = Array.from({ length: 18 }, (_, i) => `d${i}`).join('/')
    const root = tree({ [`${deep}/far.json`]: '{}', 'near.json': '{}' })
    expect(walkDirectory(root).map((f) => f.slice(root.length + 1))).toEqual(['near.json'])
  })
})

describe('loadSources', () => {
  it('merges the files, passing over scanned files that are no mock document, with one warning', () => {
    const root = tree({
      'a.json': stub('/a', 'a'),
      'b.json': stub('/b', 'b'),
      'notes.txt': 'just some notes',
    })
    const files = collectFiles({ paths: [root], include: [], exclude: [], extensions })
    const loaded = loadSources(files, importFile, { cwd: root, named: givenFiles([root]) })
    expect(loaded.document.transactions.map((t) => t.dsl.requestDsl.url)).toHaveLength(2)
    expect(loaded.warnings.map((w) => w.message)).toContain(
      'skipped 1 file that is not a mock document: notes.txt (--exclude GLOB leaves such files out without this warning)',
    )
  })

  it('refuses a named file that is no mock document, and lists the problems of every file at once', () => {
    const root = tree({ 'notes.txt': 'just some notes', 'bad.yaml': 'transactions: 5' })
    const files = [join(root, 'bad.yaml'), join(root, 'notes.txt')]
    const err = thrown(() => loadSources(files, importFile, { cwd: root }))
    expect(err.code).toBe('ERR_DSL_INVALID')
    expect(err.message).toContain('2 errors')
    expect(new Set(err.details?.map((d) => d.file))).toEqual(new Set(['bad.yaml', 'notes.txt']))
  })

  it('reports an error that is not ours as a problem of its file', () => {
    const root = tree({ 'a.json': '{}' })
    const err = thrown(() =>
      loadSources(
        [join(root, 'a.json')],
        () => {
          throw new Error('disk on fire')
        },
        { cwd: root },
      ),
    )
    expect(err.details).toEqual([{ path: '', message: 'disk on fire', file: 'a.json' }])
  })

  it('takes the settings of the last file that has some, saying whose were replaced', () => {
    const root = tree({
      'a.json': understudy({ cors: true }, [txn(1, '/a')]),
      'b.json': understudy({ thinkTime: 5 }, [txn(2, '/b')]),
    })
    const loaded = loadSources([join(root, 'a.json'), join(root, 'b.json')], importFile, {
      cwd: root,
    })
    expect(loaded.warnings.map((w) => w.message)).toContain(
      'mock-service settings of a.json are replaced by those of b.json',
    )
    expect(loaded.document.cors).toBeUndefined()
  })

  it('serves a later copy of a transaction id without its id, saying so', () => {
    const root = tree({
      'a.json': understudy({}, [txn(1, '/a')]),
      'b.json': understudy({}, [txn(1, '/b')]),
    })
    const loaded = loadSources([join(root, 'a.json'), join(root, 'b.json')], importFile, {
      cwd: root,
    })
    expect(loaded.document.transactions.map((t) => t.id)).toEqual([1, undefined])
    expect(loaded.warnings.map((w) => w.message)).toContain(
      'transaction id 1 appears in more than one file; the copy named "t1" is served without an id',
    )
  })

  it("applies a file's selection of its transactions, keeping its no-match transaction", () => {
    const root = tree({
      'a.json': understudy(
        {
          noMatchingRequestPreference: 'returnTransaction',
          noMatchingRequestTxnId: 3,
          mockServiceTransactions: [{ txnId: 1, priority: 7 }],
        },
        [txn(1, '/a'), txn(2, '/b'), txn(3, '/fallback')],
      ),
    })
    const loaded = loadSources([join(root, 'a.json')], importFile, { cwd: root })
    expect(loaded.document.transactions.map((t) => [t.id, t.dsl.priority])).toEqual([
      [3, Number.MAX_SAFE_INTEGER],
      [1, 7],
    ])
  })
})

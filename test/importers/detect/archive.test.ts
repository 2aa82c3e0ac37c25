import zlib from 'node:zlib'
import { zipSync, type Zippable } from 'fflate'
import { describe, expect, it } from 'vitest'
import { thrown } from '../../helpers/errors.js'
import { importArchive, importFile, importFiles } from '../../../importers/index.js'

const enc = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))

/** Rewrites the declared uncompressed size of every entry (local and central headers). */
function lieAboutSizes(zip: Uint8Array, size: number): Uint8Array {
  const out = Uint8Array.from(zip)
  const view = new DataView(out.buffer)
  for (let i = 0; i + 4 <= out.length; i++) {
    const signature = view.getUint32(i, true)
    if (signature === 0x04034b50) view.setUint32(i + 22, size, true)
    if (signature === 0x02014b50) view.setUint32(i + 24, size, true)
  }
  return out
}

/** A zip of one deflated entry, from its raw deflate bytes (sizes and CRC left for the test to set). */
function withDeflatedEntry(name: string, deflated: Uint8Array): Uint8Array {
  const nameBytes = Buffer.from(name)
  const local = Buffer.alloc(30)
  local.writeUInt32LE(0x04034b50, 0)
  local.writeUInt16LE(20, 4)
  local.writeUInt16LE(8, 8)
  local.writeUInt32LE(deflated.length, 18)
  local.writeUInt16LE(nameBytes.length, 26)
  const central = Buffer.alloc(46)
  central.writeUInt32LE(0x02014b50, 0)
  central.writeUInt16LE(20, 4)
  central.writeUInt16LE(20, 6)
  central.writeUInt16LE(8, 10)
  central.writeUInt32LE(deflated.length, 20)
  central.writeUInt16LE(nameBytes.length, 28)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(1, 8)
  end.writeUInt16LE(1, 10)
  end.writeUInt32LE(46 + nameBytes.length, 12)
  end.writeUInt32LE(30 + nameBytes.length + deflated.length, 16)
  return Buffer.concat([local, nameBytes, deflated, central, nameBytes, end])
}

describe('importArchive limits', () => {
  it('refuses a zip bomb from its declared sizes, before inflating it', () => {
    const zip = zipSync({ 'zeros.json': new Uint8Array(4 * 1024 * 1024) }, { level: 9 })
    expect(zip.byteLength).toBeLessThan(64 * 1024)
    const err = thrown(() => importArchive(zip, 'bomb.zip', { maxBytes: 1024 * 1024 }))
    expect(err.code).toBe('ERR_IMPORT_TOO_LARGE')
    expect(err.message).toBe('File bomb.zip (uncompressed) is larger than the limit of 1 MiB')
  })

  it('stops inflating at the limit from the bytes produced when a declared size lies', () => {
    const stub = { request: { url: '/a' }, response: { body: 'x'.repeat(100_000) } }
    const zip = lieAboutSizes(zipSync({ 'stub.json': enc(stub) }), 40)
    const err = thrown(() => importArchive(zip, 'liar.zip', { maxBytes: 1000 }))
    expect(err.code).toBe('ERR_IMPORT_TOO_LARGE')
    expect(err.message).toBe('File liar.zip (uncompressed) is larger than the limit of 1000 bytes')
    // Under the limit, the entry's real bytes are imported, whatever it declared.
    const fine = importArchive(zip, 'liar.zip', { maxBytes: 1024 * 1024 })
    expect(fine.document.transactions.map((t) => t.name)).toEqual(['ANY /a'])
  })

  it('refuses an entry that declares 100 bytes and inflates to 64 MiB, without inflating it all', () => {
    // 64 MiB of zeros as one raw deflate stream, wrapped in a zip whose headers say 100 bytes.
    const zeros = new Uint8Array(1024 * 1024)
    const deflater = zlib.deflateRawSync(Buffer.concat(Array.from({ length: 64 }, () => zeros)), {
      level: 9,
    })
    const zip = lieAboutSizes(withDeflatedEntry('bomb.json', deflater), 100)
    const started = Date.now()
    const err = thrown(() => importArchive(zip, 'bomb.zip', { maxBytes: 4 * 1024 * 1024 }))
    expect(err.code).toBe('ERR_IMPORT_TOO_LARGE')
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('refuses bytes that are not a readable zip', () => {
    const err = thrown(() => importArchive(Buffer.from('PK\u0003\u0004 broken'), 'broken.zip'))
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(/^Cannot import broken\.zip: is not a readable zip archive/)
  })

  it('refuses an archive with nothing to import', () => {
    const err = thrown(() =>
      importFile({ bytes: zipSync({ 'notes.md': enc('# hi') }), fileName: 'docs.zip' }),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.message).toMatch(/docs\.zip: contains no file that can be imported/)
  })

  it('ignores entry names that climb out of the archive, and macOS resource forks', () => {
    const zip = zipSync({
      '../evil.json': enc({ request: { url: '/evil' } }),
      '__MACOSX/._stub.json': enc('junk'),
      'ok.json': enc({ request: { url: '/ok' } }),
    })
    const result = importArchive(zip, 'a.zip')
    expect(result.document.transactions.map((t) => t.name)).toEqual(['ANY /ok'])
    expect(result.warnings).toEqual([])
  })
})

describe('importArchive merging', () => {
  const entries: Zippable = {
    'z-settings.yaml': enc(
      'thinkTime: 99\ntransactions:\n  - name: z\n    dsl: {requestDsl: {path: /z}}\n',
    ),
    'a-settings.yaml': enc(
      'thinkTime: 10\ncapacity: 5\ntransactions:\n  - name: a\n    dsl: {requestDsl: {path: /a}}\n',
    ),
    'b/mappings/stubs.json': enc({
      mappings: [
        { request: { urlPath: '/b1' } },
        { request: { urlPath: '/b2' } },
        { request: { urlPath: '/b3' } },
      ],
    }),
    'b/__files/unused.bin': new Uint8Array([1, 2, 3]),
    'c.postman_collection.json': enc({
      info: { name: 'c' },
      item: [{ name: 'c', request: 'http://h/c', response: [{ name: 'ok', code: 200 }] }],
    }),
    'd-req.txt': enc('GET /d HTTP/1.1\n\n'),
    'd-rsp.txt': enc('HTTP/1.1 200 OK\n\n'),
    'e-unknown.json': enc({ something: 'else' }),
    'f-broken.json': enc('{"request": '),
    'g/nested.zip': zipSync({ 'x.json': enc({}) }),
    'README.md': enc('# archive'),
  }

  it('merges every importable entry in path order, with warnings naming entries', () => {
    const result = importArchive(zipSync(entries), 'mixed.zip')
    expect(result.document.transactions.map((t) => t.name)).toEqual([
      'a',
      'ANY /b1',
      'ANY /b2',
      'ANY /b3',
      'c / ok',
      'd',
      'z',
    ])
    expect(result.document.thinkTime).toEqual({ type: 'fixed', duration: 10 })
    expect(result.document.capacity).toBe(5)
    expect(result.format).toBe('wiremock')
    expect(result.dslType).toBe('WIREMOCK_DSL')
    expect(result.parts).toEqual([
      { file: 'a-settings.yaml', format: 'dsl', dslType: 'GENERIC_DSL', transactions: 1 },
      {
        file: 'b/mappings/stubs.json',
        format: 'wiremock',
        dslType: 'WIREMOCK_DSL',
        transactions: 3,
      },
      {
        file: 'c.postman_collection.json',
        format: 'postman',
        dslType: 'POSTMAN_DSL',
        transactions: 1,
      },
      { file: 'd-req.txt', format: 'rr', dslType: 'RR_PAIR', transactions: 1 },
      { file: 'z-settings.yaml', format: 'dsl', dslType: 'GENERIC_DSL', transactions: 1 },
    ])
    const byFile = result.warnings.map((w) => `${w.file ?? ''}: ${w.message}`)
    expect(byFile).toEqual([
      'README.md: is not a .json, .yaml, .yml, .har or .txt file; skipped',
      'g/nested.zip: nested archives are not imported; skipped',
      expect.stringMatching(
        /^e-unknown\.json: not imported: Unrecognised file format: e-unknown\.json: its top-level keys \(something\)/,
      ),
      expect.stringMatching(
        /^f-broken\.json: not imported: Cannot import f-broken\.json: not valid JSON or YAML: .*\(line 1, column \d+\)/,
      ),
      'z-settings.yaml: sets thinkTime differently from a-settings.yaml; the value of a-settings.yaml is kept',
    ])
  })

  it('imports a directory listing the same way', () => {
    const files = new Map(Object.entries(entries).map(([k, v]) => [k, v as Uint8Array]))
    expect(importFiles(files, 'mocks/').document).toEqual(
      importArchive(zipSync(entries), 'mixed.zip').document,
    )
  })

  it('fails, listing every entry, when no entry imports', () => {
    const err = thrown(() =>
      importArchive(zipSync({ 'x.json': enc({ nope: 1 }), 'y.yaml': enc('a: [') }), 'bad.zip'),
    )
    expect(err.code).toBe('ERR_IMPORT_INVALID')
    expect(err.details?.map((d) => d.file)).toEqual(['x.json', 'y.yaml'])
  })

  it('stops at the size limit of the whole set', () => {
    const err = thrown(() =>
      importFiles(
        new Map([
          ['a.json', new Uint8Array(600)],
          ['b.json', new Uint8Array(600)],
        ]),
        'dir/',
        { maxBytes: 1000 },
      ),
    )
    expect(err.code).toBe('ERR_IMPORT_TOO_LARGE')
  })
})

describe('an OpenAPI archive', () => {
  const index = [
    'openapi: 3.0.3',
    'info: {title: pets, version: "1"}',
    'paths:',
    '  /pets/{id}:',
    '    get:',
    '      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]',
    '      responses:',
    '        "200":',
    '          description: a pet',
    '          content:',
    '            application/json:',
    '              schema: {$ref: "schemas/pet.yaml"}',
    '',
  ].join('\n')
  const pet = 'type: object\nproperties:\n  name: {type: string, example: Rex}\n'

  it('imports index.yaml as the main file, serving the other files as its references', () => {
    const result = importArchive(
      zipSync({ 'api/index.yaml': enc(index), 'api/schemas/pet.yaml': enc(pet) }),
      'api.zip',
    )
    expect(result.format).toBe('openapi')
    expect(result.parts.map((p) => p.file)).toEqual(['api/index.yaml'])
    expect(result.document.transactions.length).toBeGreaterThan(0)
    expect(result.warnings.filter((w) => /pet\.yaml/.test(w.message))).toEqual([])
  })

  it('lets the OpenAPI importer report a reference the archive lacks', () => {
    const result = importArchive(zipSync({ 'api/index.yaml': enc(index) }), 'api.zip')
    expect(result.warnings.some((w) => /pet\.yaml/.test(w.message))).toBe(true)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  codes,
  createError,
  describeError,
  formatDetail,
  isUnderstudyError,
  toUnderstudyError,
  UnderstudyError,
  type ErrorCode,
} from '../../../src/errors/index.js'

/*
 * The error catalogue (docs/architecture.md#conventions): each key is its code, in the ERR_<AREA>_<DETAIL> form,
 * and docs/errors.md lists exactly the catalogue (fastify test/internals/errors.test.js).
 */

const AREAS = [
  'CONFIG',
  'DSL',
  'IMPORT',
  'MATCH',
  'SERVE',
  'INSPECT',
  'API',
  'STORE',
  'DEPLOY',
  'NET',
]
const CODE_FORM = new RegExp(`^ERR_(${AREAS.join('|')})_[A-Z0-9]+(_[A-Z0-9]+)*$`)
const allCodes = Object.keys(codes) as ErrorCode[]

/** The rows of the markdown table in docs/errors.md: code, status, meaning, fix. */
function documentedRows(): Array<{ code: string; status: number; meaning: string; fix: string }> {
  const text = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8')
  const rows: Array<{ code: string; status: number; meaning: string; fix: string }> = []
  let header: string[] | null = null
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) continue
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim())
    if (header === null) {
      header = cells
      continue
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue
    rows.push({
      code: (cells[0] ?? '').replace(/`/g, ''),
      status: Number(cells[1]),
      meaning: cells[2] ?? '',
      fix: cells[3] ?? '',
    })
  }
  expect(header).toEqual(['code', 'status', 'meaning', 'fix'])
  return rows
}

describe('the error catalogue', () => {
  it.each(allCodes)('%s has the ERR_<AREA>_<DETAIL> form', (code) => {
    expect(code === 'ERR_INTERNAL' || CODE_FORM.test(code)).toBe(true)
  })

  it.each(allCodes)(
    '%s creates an error whose code is its key and whose status is an HTTP error status',
    (code) => {
      const err = createError(code, ['a', 'b'])
      expect(err.code).toBe(code)
      expect(err.statusCode).toBe(codes[code].status)
      expect(
        Number.isInteger(err.statusCode) && err.statusCode >= 400 && err.statusCode <= 599,
      ).toBe(true)
      expect(err.message).not.toBe('')
    },
  )

  it('holds ERR_INTERNAL with status 500', () => {
    expect(codes.ERR_INTERNAL.status).toBe(500)
  })
})

describe('docs/errors.md', () => {
  it('lists exactly the codes of the catalogue, in its order', () => {
    expect(documentedRows().map((r) => r.code)).toEqual(allCodes)
  })

  it('gives each code the status of the catalogue, a meaning and a fix', () => {
    for (const row of documentedRows()) {
      expect(row.status, row.code).toBe(codes[row.code as ErrorCode].status)
      expect(row.meaning.length, row.code).toBeGreaterThan(10)
      expect(row.fix.length, row.code).toBeGreaterThan(5)
    }
  })
})

describe('createError', () => {
  it('fills %s placeholders in order', () => {
    const err = createError('ERR_DSL_PARSE', ['mocks/a.json', 'Unexpected token'])
    expect(err.message).toBe('Cannot parse mocks/a.json: Unexpected token')
    expect(createError('ERR_SERVE_BODY_TOO_LARGE', [10485760]).message).toBe(
      'Request body is larger than the limit of 10485760 bytes',
    )
  })

  it('keeps the catalogue message when given no arguments', () => {
    expect(createError('ERR_INTERNAL').message).toBe('Internal error')
    expect(createError('ERR_API_UNAUTHORIZED').message).toBe('Missing or invalid credentials')
  })

  it('carries details and cause', () => {
    const cause = new Error('disk full')
    const details = [{ path: '/a', message: 'is bad' }]
    const err = createError('ERR_STORE_FAILED', ['write'], { cause, details })
    expect(err).toBeInstanceOf(UnderstudyError)
    expect(err).toBeInstanceOf(Error)
    expect(err).toMatchObject({
      name: 'UnderstudyError',
      code: 'ERR_STORE_FAILED',
      statusCode: 500,
      details,
      cause,
    })
    expect(createError('ERR_STORE_FAILED', ['x']).details).toBeUndefined()
  })
})

describe('error helpers', () => {
  it('recognize UnderstudyErrors, optionally by code', () => {
    const err = createError('ERR_DSL_INVALID', ['1 error'])
    expect(isUnderstudyError(err)).toBe(true)
    expect(isUnderstudyError(err, 'ERR_DSL_INVALID')).toBe(true)
    expect(isUnderstudyError(err, 'ERR_DSL_PARSE')).toBe(false)
    expect(isUnderstudyError(new Error('x'))).toBe(false)
  })

  it('turn anything else thrown into ERR_INTERNAL without its message', () => {
    const original = new TypeError('x is undefined at /srv/secret/path.js')
    const err = toUnderstudyError(original)
    expect(err).toMatchObject({
      code: 'ERR_INTERNAL',
      statusCode: 500,
      message: 'Internal error',
      cause: original,
    })
    const ours = createError('ERR_API_CONFLICT', ['busy'])
    expect(toUnderstudyError(ours)).toBe(ours)
  })

  it('format a detail as file:line:column pointer: message, leaving out what is unknown', () => {
    expect(
      formatDetail({ path: '/a/0', message: 'is bad', file: 'm.yaml', line: 3, column: 5 }),
    ).toBe('m.yaml:3:5 /a/0: is bad')
    expect(formatDetail({ path: '/a', message: 'is bad', file: 'm.yaml' })).toBe(
      'm.yaml /a: is bad',
    )
    expect(formatDetail({ path: '', message: 'is bad' })).toBe('/: is bad')
  })

  it('describe an error on one line with its first details', () => {
    const details = [1, 2, 3, 4, 5].map((i) => ({ path: `/${i}`, message: 'bad' }))
    expect(describeError(createError('ERR_DSL_INVALID', ['5 errors'], { details }), 2)).toBe(
      'Invalid mock definition: 5 errors: /1: bad; /2: bad; and 3 more',
    )
    expect(describeError(createError('ERR_INTERNAL'))).toBe('Internal error')
  })
})

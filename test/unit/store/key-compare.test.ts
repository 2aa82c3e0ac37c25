import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { compareKeys, comparisonOf } from '../../../src/store/sqlite/key-compare.js'

/*
 * key-compare.ts decides where a written row falls among a list's marks without asking SQLite:
 * it must order exactly as SQLite's ORDER BY does, or a moved position is off by one.
 */

const texts = [
  '',
  'a',
  'A',
  'b',
  'B',
  'Z',
  'z',
  '_',
  '^',
  '`',
  '[',
  'a_b',
  'A-b',
  'ab',
  'aB',
  'Ab',
  'é',
  'É',
  'ß',
  'ss',
  'Zoë',
  'zoe',
  '😀',
  '😀a',
  '\uffff',
  '\ue000',
  '\ud7ff',
  'ｚ',
  '𝒜',
  'a\u0000b',
  '1',
  '10',
  '9',
  ' ',
]

describe('key comparison', () => {
  it('orders text, numbers and ties as SQLite does, BINARY and NOCASE, both directions', () => {
    const db = new Database(':memory:')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL, n INTEGER NOT NULL) STRICT')
    const insert = db.prepare('INSERT INTO t (id, k, n) VALUES (?, ?, ?)')
    texts.forEach((text, i) => {
      insert.run(i * 2 + 1, text, i % 3)
      insert.run(i * 2 + 2, text, -i)
    })
    for (const expression of ['k', 'k COLLATE NOCASE', 'n']) {
      for (const descending of [false, true]) {
        const order = { expressions: [expression, 'id'], descending }
        const comparison = comparisonOf(order)
        if (comparison === undefined) throw new Error(`no comparison of ${expression}`)
        const direction = descending ? 'DESC' : 'ASC'
        const rows = db
          .prepare(
            `SELECT ${expression} AS k0, id AS k1 FROM t ORDER BY ${expression} ${direction}, id ${direction}`,
          )
          .all() as Array<{ k0: unknown; k1: number }>
        const keys = rows.map((row) => [row.k0, row.k1])
        const sorted = [...keys].reverse().sort((a, b) => compareKeys(comparison, a, b))
        expect(sorted, `${expression} ${direction}`).toEqual(keys)
      }
    }
    db.close()
  })

  it('declines an order whose collation it does not mirror', () => {
    expect(
      comparisonOf({ expressions: ['name COLLATE RTRIM', 'id'], descending: false }),
    ).toBeUndefined()
  })
})

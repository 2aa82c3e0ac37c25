import { describe, expect, it } from 'vitest'
import { parseDocument, LineCounter, isNode } from 'yaml'
import { jsonValueOffset, positionAt } from '../../../src/dsl/json-locate.js'
import { pointerSegments } from '../../../src/dsl/index.js'

/** The YAML parser's answer (YAML 1.2 reads JSON), which the scan replaces. */
function yamlPosition(text: string, pointer: string): { line: number; column: number } | undefined {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter })
  const segments: unknown[] = pointerSegments(pointer).map((s) => (/^\d+$/.test(s) ? Number(s) : s))
  for (let n = segments.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(segments.slice(0, n), true)
    if (isNode(node) && node.range !== undefined && node.range !== null) {
      const pos = lineCounter.linePos(node.range[0])
      return { line: pos.line, column: pos.col }
    }
  }
  return undefined
}

describe('jsonValueOffset', () => {
  const text = JSON.stringify(
    {
      name: 'pets',
      'a/b~c': { 'q"uote': [1, { deep: [true, null, 'x,]}'] }] },
      transactions: [
        { dsl: { requestDsl: { path: '/a' }, responseDsl: { status: 200 } } },
        { dsl: { requestDsl: {}, responseDsl: [] } },
      ],
      empty: {},
      list: [],
    },
    null,
    2,
  )
  const pointers = [
    '',
    '/name',
    '/a~1b~0c',
    '/a~1b~0c/q"uote/1/deep/2',
    '/transactions/1/dsl/requestDsl',
    '/transactions/1/dsl/requestDsl/path',
    '/transactions/0/dsl/responseDsl/status',
    '/transactions/5',
    '/empty/x',
    '/list/0',
    '/missing/x/y',
    '/name/x',
  ]

  it('finds what the YAML parser finds, values and nearest existing ancestors', () => {
    for (const pointer of pointers) {
      const offset = jsonValueOffset(text, pointerSegments(pointer))
      expect(offset === undefined ? undefined : positionAt(text, offset), pointer).toEqual(
        yamlPosition(text, pointer),
      )
    }
  })

  it('scans nesting far deeper than the stack allows, and gives up on text that is not JSON', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000)
    expect(jsonValueOffset(deep, Array<string>(100_000).fill('0'))).toBe(100_000)
    expect(jsonValueOffset('{"a" 1}', ['a'])).toBeUndefined()
    expect(jsonValueOffset('[1, 2', ['5'])).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { groupWarnings, warningKind } from '../../../src/cli/startup-report.js'

describe('start-up warnings grouped by kind', () => {
  it('counts as one kind what differs only by names, paths, methods, numbers and details', () => {
    const warnings = [
      'request "A / B" has no saved example response; it is imported as a placeholder',
      'GET /cp/3944 was recorded 9 times with the same query and body; the first response (entries[0], status 200) is kept',
      'request "C" has no saved example response; it is imported as a placeholder',
      'POST /api/logger was recorded 14 times with the same query and body; the first response (entries[58], status 204) is kept: entries[60]',
      'no entry could be turned into a transaction',
    ].map((message) => ({ message }))
    expect(groupWarnings(warnings).map((g) => [g.example.message.slice(0, 20), g.count])).toEqual([
      ['request "A / B" has ', 2],
      ['GET /cp/3944 was rec', 2],
      ['no entry could be tu', 1],
    ])
    expect(warningKind('mock-service settings of a/x.yaml are replaced by those of b/y.yaml')).toBe(
      warningKind('mock-service settings of c.yaml/z are replaced by those of d/e.yaml'),
    )
  })
})

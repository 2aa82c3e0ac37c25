import type { FailedCondition } from './diagnose.js'

const partWords: Record<FailedCondition['part'], string> = {
  method: 'method',
  url: 'path',
  queryParams: 'query parameter',
  headers: 'header',
  cookies: 'cookie',
  scenario: 'scenario state',
  credentials: 'credentials',
  body: 'body',
}

/**
 * One failed condition of the near-miss diagnosis in words, as the sandbox's `matchingLog`
 * shows it. The diagnosis stays the one source: this only formats it.
 *
 * @example
 * failureInWords({ part: 'method', matcherName: 'equals', expected: 'GET', actual: 'POST' }) // 'Request method POST did not match GET'
 */
export function failureInWords(f: FailedCondition): string {
  const what = `Request ${partWords[f.part]}${f.key === undefined || f.key === '' ? '' : ` ${f.key}`}`
  if (f.part === 'method') return `${what} ${f.actual ?? '(none)'} did not match ${f.expected}`
  if (f.matcherName === 'absent') return `${what} is present but must be absent`
  if (f.actual === null) return `${what} is missing (expected ${f.matcherName} ${f.expected})`
  if (f.part === 'credentials') return `${what} did not match`
  if (f.matcherName === 'matches_xml_schema') {
    return `${what} does not validate against the XML schema: ${f.actual}`
  }
  if (f.matcherName === 'matches_json_schema') {
    return `${what} does not validate against the JSON schema: ${f.actual}`
  }
  if (f.reason !== undefined) {
    return `${what} did not match ${f.matcherName} ${f.expected}: ${f.reason}`
  }
  return `${what} ${f.actual} did not match ${f.matcherName} ${f.expected}`
}

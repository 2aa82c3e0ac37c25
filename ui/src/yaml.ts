/**
 * YAML for display and export, written without a library to keep the dashboard small: plain
 * scalars only where YAML reads them back as the same string, double-quoted JSON strings
 * otherwise (a JSON string is a valid YAML double-quoted scalar), so `yaml.parse` of the output
 * gives back the input.
 */
const PLAIN = /^[A-Za-z_/][\w ./{}:-]*$/
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i

function scalar(value: string): string {
  const plain =
    PLAIN.test(value) &&
    !RESERVED.test(value) &&
    !value.includes(': ') &&
    !value.endsWith(':') &&
    !value.endsWith(' ')
  return plain ? value : JSON.stringify(value)
}

export function toYaml(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return scalar(value)
  if (typeof value !== 'object') return String(value)
  const next = indent + '  '
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return value.map((v) => `\n${indent}- ${toYaml(v, next).replace(/^\n\s*/, '')}`).join('')
  }
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length === 0) return '{}'
  return entries.map(([k, v]) => `\n${indent}${scalar(k)}: ${toYaml(v, next)}`).join('')
}

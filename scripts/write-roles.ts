// `npm run roles`: rewrites the table of docs/roles.md from the access policy and the route table
// (test/e2e/platform/roles.test.ts fails when the page and the served routes differ).
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describeRule, ruleOf } from '../src/api/access/policy.js'
import { allRoutes } from '../src/api/index.js'

const file = resolve(import.meta.dirname, '../docs/roles.md')
const page = readFileSync(file, 'utf8')
const head = '| Method | Path | Who |\n|---|---|---|\n'
const start = page.indexOf(head)
if (start === -1) throw new Error('docs/roles.md has no role table')
const tableStart = start + head.length
let end = tableStart
while (end < page.length && page.startsWith('|', end)) end = page.indexOf('\n', end) + 1
const rows = allRoutes.map((r) => `| ${r.method} | \`${r.path}\` | ${describeRule(ruleOf(r))} |\n`).join('')
writeFileSync(file, page.slice(0, tableStart) + rows + page.slice(end))

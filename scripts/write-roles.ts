// `npm run roles`: rewrites the tables of docs/roles.md from the access policy and the route tables
// (test/e2e/platform/roles.test.ts fails when the page and the served routes differ).
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  describeMonitoringAuth,
  describeRule,
  monitoringRuleOf,
  ruleOf,
} from '../src/api/access/policy.js'
import { allRoutes } from '../src/api/index.js'
import { monitoringRoutes } from '../src/api/monitor/routes.js'

const file = resolve(import.meta.dirname, '../docs/roles.md')

/** The page with the rows of the table under `head` replaced. */
function replaceTable(page: string, head: string, rows: string): string {
  const start = page.indexOf(head)
  if (start === -1) throw new Error(`docs/roles.md has no table headed ${head.split('\n')[0]}`)
  const tableStart = start + head.length
  let end = tableStart
  while (end < page.length && page.startsWith('|', end)) end = page.indexOf('\n', end) + 1
  return page.slice(0, tableStart) + rows + page.slice(end)
}

let page = readFileSync(file, 'utf8')
page = replaceTable(
  page,
  '| Method | Path | Who |\n|---|---|---|\n',
  allRoutes.map((r) => `| ${r.method} | \`${r.path}\` | ${describeRule(ruleOf(r))} |\n`).join(''),
)
page = replaceTable(
  page,
  '| Method | Path | Who | Authentication |\n|---|---|---|---|\n',
  monitoringRoutes
    .map(
      (r) =>
        `| ${r.method} | \`${r.path}\` | ${describeRule(monitoringRuleOf(r))} | ${describeMonitoringAuth(r)} |\n`,
    )
    .join(''),
)
writeFileSync(file, page)

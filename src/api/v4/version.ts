import { readFileSync } from 'node:fs'
import type { Route } from '../http/types.js'

/** The package version, read once (package.json is three directories up from src/api/v4, four from dist/src/api/v4). */
function packageVersion(): string {
  for (const up of ['../../../package.json', '../../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'understudy' && typeof pkg.version === 'string') return pkg.version
    } catch {}
  }
  return '0.0.0'
}

const version = packageVersion()

/** `GET /api/v4/web/version`: what clients ping before anything else; no API key needed. */
export const versionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v4/web/version',
    family: 'v4',
    auth: 'none',
    handler: async () => ({ result: { version, name: 'understudy', apiVersion: 4 } }),
  },
]

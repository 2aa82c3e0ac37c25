import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { validate } from 'dockerfile-utils'
import { describe, expect, it } from 'vitest'

// No Docker engine runs here, so the Dockerfile is linted (dockerfile-utils, the validator of the
// Docker language server) and checked against the container contract (docs/deploy.md, "One mock service in a container") instead of built.
const text = readFileSync(resolve(import.meta.dirname, '../../Dockerfile'), 'utf8')
const lastStage = text.slice(text.lastIndexOf('\nFROM '))

describe('Dockerfile', () => {
  it('has no lint diagnostics', () => {
    expect(validate(text)).toEqual([])
  })

  it('is multi-stage and runs as a non-root user under tini', () => {
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2)
    expect(lastStage).toMatch(/^USER (?!root)\w+/m)
    expect(lastStage).toContain('tini')
    expect(lastStage).not.toMatch(/apk add[^\n]*(g\+\+|make|python)/)
  })

  it('runs `understudy run` reading /config/mock.json, with a health check on the admin port', () => {
    expect(lastStage).toMatch(/ENTRYPOINT \[.*"run"\]/)
    expect(lastStage).toMatch(/CMD \[.*"--mock", "\/config\/mock.json".*"--admin-port", "9090"/)
    expect(lastStage).toMatch(/HEALTHCHECK[\s\S]*127\.0\.0\.1:9090\/health/)
  })
})

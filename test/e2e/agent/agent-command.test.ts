import { describe, expect, it } from 'vitest'
import { startGroup, testHarbor, type HarborShip } from '../../helpers/agent.js'
import { runCli } from '../../helpers/cli.js'
import { startTestPlatform } from '../../helpers/platform.js'
import { tempDir } from '../../helpers/temp-dir.js'
import { call } from '../platform/tenancy-helpers.js'

/* `understudy agent` on the command line: its flags, and how it starts or refuses to. */

const good = [
  '--platform',
  'http://127.0.0.1:9',
  '--harbor',
  'harbor-abc',
  '--ship',
  'ship-abc',
  '--token',
  'secret-token',
]

function withFlag(flag: string, value?: string): string[] {
  const args = [...good]
  const at = args.indexOf(flag)
  if (at >= 0) args.splice(at, 2)
  return value === undefined ? args : [...args, flag, value]
}

describe('understudy agent: flags', () => {
  it.each([
    ['no --platform', withFlag('--platform'), '--platform is required'],
    ['a bad --port-range', [...good, '--port-range', '50-40'], '--port-range must be A-B'],
    ['--monitor without --region', [...good, '--monitor'], '--monitor needs --region'],
  ])('refuses %s with one line and exit code 2', async (_what, args, message) => {
    const result = await runCli(['agent', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stdout).toBe('')
  })

  it('needs the ship token, and refuses an API key in its place', async () => {
    const noToken = await runCli(['agent', ...withFlag('--token')], {
      env: { UNDERSTUDY_AGENT_TOKEN: '' },
    })
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toContain('--token (or UNDERSTUDY_AGENT_TOKEN) is required')
    const apiKey = await runCli(['agent', ...withFlag('--token')], {
      env: {
        UNDERSTUDY_AGENT_TOKEN: '',
        UNDERSTUDY_API_KEY_ID: 'someone',
        UNDERSTUDY_API_KEY_SECRET: 'secret',
      },
    })
    expect(apiKey.code).toBe(2)
    expect(apiKey.stderr).toContain('cannot act as a ship')
  })

  it('exits 1 with one line when the platform refuses the ship token', async () => {
    const platform = await startTestPlatform()
    const { harborId, ships } = await testHarbor(platform, 'lab', ['lab-1'])
    const ship = ships[0] as HarborShip
    const args = [
      'agent',
      '--platform',
      platform.url,
      '--harbor',
      harborId,
      '--ship',
      ship.id,
      '--data-dir',
      tempDir('understudy-agent-cli-'),
      '--log-level',
      'silent',
    ]
    const refused = await runCli([...args, '--token', 'wrong-token'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`refused the token of ship ${ship.id}`)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stdout).not.toContain('agent ready')

    // With the right token it registers, and with --monitor --region it also claims that region's runs.
    const monitor = await startGroup(
      [...args, '--token', ship.token, '--monitor', '--region', 'eu-west'],
      /agent ready/,
    )
    expect(monitor.child.exitCode).toBe(null)
    expect(monitor.stderr()).not.toContain('not available')
    const servers = await call<Array<{ state: string }>>(
      platform,
      platform.auth,
      'GET',
      `/api/v4/private-locations/${harborId}/servers`,
    )
    expect(servers.body.result[0]?.state).toBe('ready')
  })
})

import { describe, expect, it } from 'vitest'
import { agentFlagsOf } from '../../../src/cli/commands/agent.js'
import { UsageError } from '../../../src/cli/usage-error.js'

/* The checks of `understudy agent`'s flags (the command turns a UsageError into exit code 2). */

const good: Record<string, string | boolean | undefined> = {
  platform: 'http://127.0.0.1:8080/',
  harbor: 'harbor-abc',
  ship: 'ship-abc',
  token: 'secret-token',
}

function refusal(values: Record<string, string | boolean | undefined>, env = {}): string {
  try {
    agentFlagsOf(values, env)
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    return (err as Error).message
  }
  throw new Error('accepted')
}

describe('understudy agent flags', () => {
  it('reads good flags with their defaults', () => {
    const flags = agentFlagsOf({ ...good, 'port-range': '47000-47009' }, {})
    expect(flags).toMatchObject({
      platform: 'http://127.0.0.1:8080',
      harborId: 'harbor-abc',
      shipId: 'ship-abc',
      token: 'secret-token',
      portRange: [47000, 47009],
      driver: 'process',
      region: null,
      heartbeatMs: 5000,
    })
    expect(
      agentFlagsOf({ ...good, token: undefined }, { UNDERSTUDY_AGENT_TOKEN: 'env-token' }).token,
    ).toBe('env-token')
    expect(agentFlagsOf({ ...good, monitor: true, region: 'eu-west' }, {}).region).toBe('eu-west')
  })

  it.each([
    [{ platform: undefined }, '--platform is required'],
    [{ platform: 'not a url' }, '--platform must be'],
    [{ platform: 'ftp://x' }, '--platform must be'],
    [{ harbor: undefined }, '--harbor is required'],
    [{ harbor: 'lab' }, '--harbor must be'],
    [{ harbor: 'harbor-local' }, 'needs no agent'],
    [{ ship: undefined }, '--ship is required'],
    [{ ship: 'a b' }, '--ship must be'],
    [{ 'port-range': '50-40' }, '--port-range must be A-B'],
    [{ 'port-range': '1-70000' }, '--port-range must be'],
    [{ 'port-range': 'all' }, '--port-range must be'],
    [{ driver: 'docker' }, '--driver must be process or kubernetes'],
    [
      { driver: 'kubernetes', 'port-range': '1-2' },
      '--port-range applies to --driver process only',
    ],
    [{ monitor: true }, '--monitor needs --region'],
    [{ region: 'eu' }, '--region goes with --monitor'],
    [{ monitor: true, region: 'eu west' }, '--region must be'],
    [{ heartbeat: '0' }, '--heartbeat must be'],
    [{ heartbeat: '61' }, '--heartbeat must be'],
    [{ 'advertise-host': 'a host' }, '--advertise-host must be'],
    [{ token: '' }, '--token is empty'],
  ])('refuses %j', (patch, message) => {
    expect(refusal({ ...good, ...patch })).toContain(message)
  })

  it('needs a ship token, and refuses an API key in its place', () => {
    expect(refusal({ ...good, token: undefined })).toContain(
      '--token (or UNDERSTUDY_AGENT_TOKEN) is required',
    )
    expect(
      refusal(
        { ...good, token: undefined },
        { UNDERSTUDY_API_KEY_ID: 'k', UNDERSTUDY_API_KEY_SECRET: 's' },
      ),
    ).toContain('cannot act as a ship')
  })
})

import { describe, expect, it } from 'vitest'
import { egressFromFlags } from '../../../src/cli/egress-flags.js'
import { parseFlags, unknownFlagMessage } from '../../../src/cli/flags.js'
import { replicasOf } from '../../../src/cli/replicas.js'
import { integerOf, runtimeOptionsFromFlags } from '../../../src/cli/runtime-flags.js'
import { UsageError } from '../../../src/cli/usage-error.js'

// Command-line flags: every mistake is a one-line UsageError (exit code 2) naming the flag, and
// good flags become the options the runtime starts with.
function usageError(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    return (err as Error).message
  }
  throw new Error('expected a UsageError')
}
const flags = (values: Record<string, string | boolean>) =>
  values as Parameters<typeof runtimeOptionsFromFlags>[0]

describe('parseFlags', () => {
  const options = { port: { type: 'string' }, 'admin-port': { type: 'string' } } as const

  it('names the nearest flag for a misspelt one, and points to --help for one far from all', () => {
    expect(usageError(() => parseFlags({ args: ['--prot', '1'], options }))).toBe(
      'unknown flag --prot (did you mean --port?)',
    )
    expect(usageError(() => parseFlags({ args: ['--zzzzzz'], options }))).toBe(
      'unknown flag --zzzzzz (see --help)',
    )
  })

  it('refuses a long flag written with one dash, which would read as short flags', () => {
    expect(usageError(() => parseFlags({ args: ['-port', '8080'], options }))).toBe(
      'unknown flag -port (did you mean --port?)',
    )
    expect(usageError(() => parseFlags({ args: ['-admin-prt=1'], options }))).toBe(
      'unknown flag -admin-prt (did you mean --admin-port?)',
    )
  })

  it('reads flags after -- as arguments', () => {
    const { positionals } = parseFlags({ args: ['--', '-port'], options, allowPositionals: true })
    expect(positionals).toEqual(['-port'])
  })

  it('writes the flag as given, or with two dashes when given bare', () => {
    expect(unknownFlagMessage('--admin=1', ['admin-port'])).toBe(
      'unknown flag --admin (did you mean --admin-port?)',
    )
    expect(unknownFlagMessage('prot', ['port'])).toBe('unknown flag --prot (did you mean --port?)')
  })
})

describe('runtime flags', () => {
  it('refuses a value out of range, naming the flag and the bound', () => {
    expect(usageError(() => runtimeOptionsFromFlags(flags({ port: '70000' }), {}, {}))).toBe(
      '--port must be <= 65535',
    )
    expect(
      usageError(() => runtimeOptionsFromFlags(flags({ 'inspection-records': '0' }), {}, {})),
    ).toBe('--inspection-records must be >= 1')
    expect(
      usageError(() => runtimeOptionsFromFlags(flags({ 'inspection-bytes': '1000' }), {}, {})),
    ).toBe('--inspection-bytes must be >= 1024')
  })

  it('refuses a word that is not one of the choices, listing them', () => {
    expect(usageError(() => runtimeOptionsFromFlags(flags({ 'log-level': 'loud' }), {}, {}))).toBe(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent',
    )
    expect(usageError(() => runtimeOptionsFromFlags(flags({ 'log-format': 'xml' }), {}, {}))).toBe(
      '--log-format must be one of auto, json, pretty',
    )
  })

  it('refuses a negative or non-numeric integer flag, quoting it', () => {
    expect(usageError(() => runtimeOptionsFromFlags(flags({ 'body-limit': '-1' }), {}, {}))).toBe(
      '--body-limit must be a non-negative integer, not "-1"',
    )
    expect(usageError(() => integerOf('drain-timeout', '1e3'))).toBe(
      '--drain-timeout must be a non-negative integer, not "1e3"',
    )
  })

  it('needs the certificate and its key together', () => {
    expect(usageError(() => runtimeOptionsFromFlags(flags({ 'tls-cert': 'a.pem' }), {}, {}))).toBe(
      '--tls-cert and --tls-key must be given together',
    )
  })

  it('takes the admin token from the environment, and then serves the admin API on --host', () => {
    const options = runtimeOptionsFromFlags(
      flags({ host: '0.0.0.0' }),
      {},
      {
        UNDERSTUDY_ADMIN_TOKEN: 'tok',
      },
    )
    expect(options).toMatchObject({ host: '0.0.0.0', adminToken: 'tok', adminHost: '0.0.0.0' })
    // without a token the admin API stays on loopback whatever --host says
    expect(runtimeOptionsFromFlags(flags({ host: '0.0.0.0' }), {}, {}).adminHost).not.toBe(
      '0.0.0.0',
    )
  })

  it('turns the switches and settings into options', () => {
    const options = runtimeOptionsFromFlags(
      flags({
        'scenario-store': 'redis://127.0.0.1:6379',
        'no-inspection': true,
        'no-wiremock-admin': true,
        'wiremock-shutdown': true,
        'log-requests': true,
        'validate-requests': true,
        'match-host': true,
        'admin-host': '::1',
        'admin-token': 'x',
        'inspection-body-bytes': '2048',
      }),
      {},
      { UNDERSTUDY_EGRESS_PROTECTED_PORTS_FILE: '/tmp/ports' },
    )
    expect(options).toMatchObject({
      scenarioStore: 'redis://127.0.0.1:6379',
      inspection: { enabled: false, maxBodyBytes: 2048 },
      wiremockAdmin: false,
      wiremockShutdown: true,
      logRequests: true,
      validateRequests: true,
      matchHost: true,
      adminHost: '::1',
      adminToken: 'x',
      egress: { protectedPortsFile: '/tmp/ports' },
    })
  })
})

describe('egress and replica flags', () => {
  it('refuses an unknown egress level, listing the levels', () => {
    expect(usageError(() => egressFromFlags('everything', undefined))).toMatch(
      /^--egress must be one of .*, not "everything"$/,
    )
  })

  it('refuses a network that is not one, and trims and drops empty entries', () => {
    expect(usageError(() => egressFromFlags('public', '10.0.0.0/33'))).toMatch(/^--egress-allow: /)
    expect(egressFromFlags('public', ' 10.1.0.0/16 , ,')).toEqual({
      level: 'public',
      allow: ['10.1.0.0/16'],
    })
  })

  it('takes 1 to 64 replicas, 1 by default', () => {
    expect(replicasOf(undefined)).toBe(1)
    expect(replicasOf('64')).toBe(64)
    for (const raw of ['0', '65', 'two', '1.5']) {
      expect(usageError(() => replicasOf(raw))).toBe(
        `--replicas must be an integer from 1 to 64, not "${raw}"`,
      )
    }
  })
})

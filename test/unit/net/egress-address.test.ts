import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  classifyAddress,
  EgressPolicy,
  writeProtectedPorts,
  type EgressSettings,
} from '../../../src/net/index.js'
import { compileCidr, inCidr } from '../../../src/net/address.js'

/** The hostname the WHATWG URL parser gives undici for a URL. */
function hostOf(url: string): string {
  return new URL(url).hostname
}

function policy(settings: Partial<EgressSettings> = {}): EgressPolicy {
  return new EgressPolicy({
    level: 'loopback',
    allow: [],
    protectedPorts: [],
    protectedPortsFile: null,
    ...settings,
  })
}

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['fc00::1', 'private'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
  ])('classes %s as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected)
  })

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:169.254.169.254]', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
  ])('classes the IPv4 address carried by %s as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected)
  })

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0/', 'unspecified'],
    ['http://2852039166/', 'link-local'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'link-local'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:7f00:0001]/', 'loopback'],
  ])('classes the host of %s (decimal, hex, octal and short forms) as %s', (url, expected) => {
    expect(classifyAddress(hostOf(url))).toBe(expected)
  })

  it('answers null for a name, which has to be resolved first', () => {
    expect(classifyAddress('localhost')).toBeNull()
    expect(classifyAddress('metadata.google.internal')).toBeNull()
  })

  it('reads networks in both families, IPv4 ones written in their mapped IPv6 form too', () => {
    expect(inCidr('10.1.2.3', compileCidr('10.0.0.0/8')!)).toBe(true)
    expect(inCidr('11.1.2.3', compileCidr('10.0.0.0/8')!)).toBe(false)
    expect(inCidr('fd12::1', compileCidr('fd00::/8')!)).toBe(true)
    expect(inCidr('::ffff:10.9.9.9', compileCidr('10.9.0.0/16')!)).toBe(true)
    expect(inCidr('10.9.9.9', compileCidr('::ffff:10.9.0.0/112')!)).toBe(true)
    expect(compileCidr('10.0.0.0/33')).toBeNull()
    expect(compileCidr('example.com/8')).toBeNull()
  })
})

describe('EgressPolicy', () => {
  it('loopback (the default) allows loopback, private and public addresses, never link-local, unspecified or reserved', () => {
    const p = policy()
    expect(p.refusal('127.0.0.1', 3000)).toBeNull()
    expect(p.refusal('10.0.0.1', 80)).toBeNull()
    expect(p.refusal('8.8.8.8', 443)).toBeNull()
    expect(p.refusal('169.254.169.254', 80)).toBe(
      'Refused by the egress policy "loopback": 169.254.169.254 is a link-local address (cloud metadata lives there)',
    )
    expect(p.refusal('::ffff:169.254.169.254', 80)).toContain('link-local')
    expect(p.refusal('0.0.0.0', 80)).toContain('unspecified')
    expect(p.refusal('224.0.0.1', 80)).toContain('reserved')
  })

  it('private refuses loopback; public refuses loopback and private ranges', () => {
    expect(policy({ level: 'private' }).refusal('127.0.0.1', 80)).toBe(
      'Refused by the egress policy "private": 127.0.0.1 is a loopback address',
    )
    expect(policy({ level: 'private' }).refusal('192.168.0.10', 80)).toBeNull()
    expect(policy({ level: 'public' }).refusal('192.168.0.10', 80)).toContain(
      '"public": 192.168.0.10 is a private address',
    )
    expect(policy({ level: 'public' }).refusal('::ffff:7f00:1', 80)).toContain('loopback')
    expect(policy({ level: 'public' }).refusal('93.184.216.34', 80)).toBeNull()
  })

  it('refuses the protected ports on every local address whatever the level, and allows them elsewhere', () => {
    const p = policy({ protectedPorts: [8080] })
    expect(p.refusal('127.0.0.1', 8080)).toContain(
      "is the platform's own port or a runtime's admin API",
    )
    expect(p.refusal('127.0.0.2', 8080)).toContain('admin API')
    expect(p.refusal('::1', 8080)).toContain('admin API')
    expect(p.refusal('::ffff:127.0.0.1', 8080)).toContain('admin API')
    expect(p.refusal('127.0.0.1', 8081)).toBeNull()
    expect(p.refusal('8.8.8.8', 8080)).toBeNull()
    p.protect(9090)
    expect(p.refusal('127.0.0.1', 9090)).toContain('admin API')
  })

  it('reads more protected ports from a file, again whenever it changes', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'egress-')), 'protected-ports')
    const p = policy({ protectedPortsFile: file })
    expect(p.refusal('127.0.0.1', 4000)).toBeNull()
    writeProtectedPorts(file, [4000, 4001])
    expect(p.refusal('127.0.0.1', 4000)).toContain('admin API')
    expect(p.refusal('127.0.0.1', 4001)).toContain('admin API')
    writeFileSync(file + '.next', '4001\n')
    writeProtectedPorts(file, [4001])
    expect(p.refusal('127.0.0.1', 4000)).toBeNull()
  })

  it('lets --egress-allow networks through a stricter level, but never to a protected port', () => {
    const p = policy({
      level: 'public',
      allow: ['10.20.0.0/16', '127.0.0.1'],
      protectedPorts: [8080],
    })
    expect(p.refusal('10.20.1.1', 80)).toBeNull()
    expect(p.refusal('10.21.1.1', 80)).toContain('private')
    expect(p.refusal('127.0.0.1', 3000)).toBeNull()
    expect(p.refusal('127.0.0.1', 8080)).toContain('admin API')
    expect(() => policy({ allow: ['nonsense'] })).toThrow(/not a network/)
  })

  it('resolves names and keeps the addresses allowed, refusing a name when none is', async () => {
    expect(await policy({ protectedPorts: [3000] }).allowedAddresses('127.0.0.1', 3001)).toEqual([
      '127.0.0.1',
    ])
    expect(await policy().allowedAddresses('localhost', 3000)).toContain('127.0.0.1')
    await expect(
      policy({ level: 'public' }).allowedAddresses('localhost', 3000),
    ).rejects.toMatchObject({
      code: 'ERR_NET_EGRESS_REFUSED',
      message: expect.stringContaining('localhost resolves to'),
    })
    await expect(policy({ level: 'public' }).allowedAddresses('[::1]', 3000)).rejects.toMatchObject(
      { code: 'ERR_NET_EGRESS_REFUSED' },
    )
    await expect(policy().allowedAddresses('169.254.169.254', 80)).rejects.toMatchObject({
      code: 'ERR_NET_EGRESS_REFUSED',
      message: expect.stringContaining('169.254.169.254 is a link-local'),
    })
  })
})

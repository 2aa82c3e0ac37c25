import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * A ship's token was 24 random bytes in base64url: one in 64 began with "-", and
 * `understudy agent --token <token>` then stopped with "Option '--token' argument is ambiguous".
 * Tokens now begin with a fixed prefix, so every token works as the flag's value.
 */

describe('a ship token', () => {
  it('never begins with a dash, so that `understudy agent --token <token>` takes it', async () => {
    const platform = await startTestPlatform()
    try {
      const harbor = (await (
        await platform.request('/api/v4/private-locations', {
          method: 'POST',
          json: {
            name: 'lab',
            accountId: platform.accountId,
            workspacesId: [platform.workspaceId],
          },
        })
      ).json()) as { result: { id: string } }
      const tokens: string[] = []
      // At one in 64, 64 tokens of the old kind hold a leading dash about two times in three.
      for (let i = 0; i < 64; i++) {
        const ship = (await (
          await platform.request(`/api/v4/private-locations/${harbor.result.id}/servers`, {
            method: 'POST',
            json: { name: `ship-${i}` },
          })
        ).json()) as { result: { token: string } }
        tokens.push(ship.result.token)
      }
      for (const token of tokens) expect(token).toMatch(/^[A-Za-z][A-Za-z0-9_-]{31,}$/)
      expect(new Set(tokens).size).toBe(tokens.length)

      // The agent command takes one as its flag's value: it gets past --token and stops at once on
      // the flag after it (a usage error, exit 2) instead of trying to reach a platform.
      const agent = await runCli(
        [
          'agent',
          '--platform',
          'http://127.0.0.1:1',
          '--harbor',
          harbor.result.id,
          '--ship',
          'ship-x',
          '--token',
          tokens[0] ?? '',
          '--driver',
          'none',
        ],
        { timeoutMs: 20_000 },
      )
      expect(agent.stderr).not.toMatch(/ambiguous|--token/)
      expect(agent.stderr).toContain('--driver must be process or kubernetes, not "none"')
      expect(agent.code).toBe(2)
    } finally {
      await platform.close()
    }
  }, 60_000)
})

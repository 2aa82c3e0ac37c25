import { describe, expect, it, onTestFinished } from 'vitest'
import { UiSessions, sessionCookie } from '../../../src/api/ui/sessions.js'
import { openSqliteStore, type StoredUiSession } from '../../../src/store/index.js'
import { tempDir } from '../../helpers/temp-dir.js'

async function store() {
  const opened = await openSqliteStore({ dataDir: tempDir() })
  onTestFinished(async () => await opened.close())
  return opened
}

function cookieOf(header: string): string {
  return header.split(';')[0] ?? ''
}

describe('dashboard sessions in the store', () => {
  it('work on another instance, end there at sign-out, and expire after 30 idle minutes', async () => {
    const shared = await store()
    let now = 1_000_000
    const ended: StoredUiSession[] = []
    const onEnded = async (s: StoredUiSession): Promise<void> => {
      ended.push(s)
    }
    const a = new UiSessions(shared, onEnded, () => now)
    const b = new UiSessions(shared, onEnded, () => now)
    const monitor = { userId: 7, tokenId: 'tok-1', authorization: 'Bearer abc' }
    const made = await a.create('key-1', 'Basic a2V5LTE6cw==', monitor)
    const cookie = cookieOf(sessionCookie(made, false))

    const onB = await b.fromCookie(cookie)
    expect(onB).toMatchObject({
      apiKeyId: 'key-1',
      authorization: 'Basic a2V5LTE6cw==',
      csrfToken: made.csrfToken,
      monitor,
    })
    // A request within the minute writes nothing; one later moves the last request time on.
    now += 30_000
    await b.fromCookie(cookie)
    expect((await shared.uiSessions.get(made.idHash))?.lastSeen).toBe(1_000_000)
    now += 31_000
    await b.fromCookie(cookie)
    expect((await shared.uiSessions.get(made.idHash))?.lastSeen).toBe(now)
    // 29 minutes later it still lives (the touch counted); 31 minutes of silence end it.
    now += 29 * 60_000
    expect(await a.fromCookie(cookie)).toBeDefined()
    now += 31 * 60_000
    expect(await a.fromCookie(cookie)).toBeUndefined()
    expect(ended.map((s) => s.monitorTokenId)).toEqual(['tok-1'])

    // Sign-out on one instance ends the session on the other, and its stream within seconds.
    const second = await b.create('key-1', 'Basic a2V5LTE6cw==', null)
    const secondCookie = cookieOf(sessionCookie(second, false))
    const alive = a.liveness((await a.fromCookie(secondCookie)) ?? second)
    expect(alive()).toBe(true)
    await b.end(second)
    expect(await a.fromCookie(secondCookie)).toBeUndefined()
    now += 5000
    alive() // looks again at the store
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(alive()).toBe(false)
  })

  it('refuses a cookie whose id was never issued or was tampered with', async () => {
    const shared = await store()
    const sessions = new UiSessions(shared, async () => {})
    const made = await sessions.create('key-1', 'Basic x', null)
    expect(await sessions.fromCookie('understudy_ui=nope')).toBeUndefined()
    expect(await sessions.fromCookie(`understudy_ui=${made.id}x`)).toBeUndefined()
    expect(await sessions.fromCookie(undefined)).toBeUndefined()
    expect(await sessions.fromCookie(`understudy_ui=${made.id}`)).toBeDefined()
  })
})

/**
 * The cookies of one run, for environments with `preserve_cookies`: what a response sets is sent
 * by the following steps to the same host. Deliberately simple: cookies are scoped by host (no
 * path or domain matching), a `Max-Age=0` or past `Expires` removes one, and nothing outlives the run.
 */
export class CookieJar {
  readonly #byHost = new Map<string, Map<string, string>>()

  constructor(private readonly now: () => number) {}

  store(url: string, setCookies: readonly string[]): void {
    const host = new URL(url).host
    let jar = this.#byHost.get(host)
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const expired = attributes.some((a) => {
        const [k = '', v = ''] = a.split('=').map((x) => x.trim())
        if (k.toLowerCase() === 'max-age') return Number(v) <= 0
        if (k.toLowerCase() === 'expires') return Date.parse(v) <= this.now()
        return false
      })
      if (jar === undefined) this.#byHost.set(host, (jar = new Map()))
      if (expired) jar.delete(name)
      else jar.set(name, value)
    }
  }

  /** The Cookie header for a URL, or null when there is none. */
  header(url: string): string | null {
    const jar = this.#byHost.get(new URL(url).host)
    if (jar === undefined || jar.size === 0) return null
    return [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

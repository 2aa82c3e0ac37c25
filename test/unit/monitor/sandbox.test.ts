import { afterAll, describe, expect, it } from 'vitest'
import { closeSandbox, runScript, type ScriptInput } from '../../../src/monitor/sandbox.js'

const limits = { timeMs: 500, memoryBytes: 8 * 1024 * 1024 }
const input: ScriptInput = {
  variables: { token: 'abc' },
  request: {
    method: 'GET',
    url: 'http://localhost/{{path}}',
    headers: { Accept: 'application/json' },
    body: '',
    form: {},
  },
  response: {
    status: 200,
    status_code: 200,
    reason: 'OK',
    headers: { 'content-type': 'application/json' },
    body: '{"items":[1,2,3]}',
    response_time_ms: 4,
    size_bytes: 17,
  },
}

afterAll(async () => {
  await closeSandbox()
})

describe('runScript (QuickJS sandbox)', () => {
  it('sees request, response and variables, sets variables and logs', async () => {
    const out = await runScript(
      `
      var data = JSON.parse(response.body);
      variables.set('count', data.items.length);
      variables.set('auth', 'Bearer ' + variables.get('token'));
      log('status', response.status, { n: data.items.length });
      console.log(md5('a'), encode_base64('hi'));
      assert.equal(response.status, 200);
      assert.include(data.items, 2);
    `,
      input,
      limits,
    )
    expect(out).toMatchObject({ ok: true, error: null })
    expect(out.variables).toEqual({ token: 'abc', count: '3', auth: 'Bearer abc' })
    expect(out.output).toBe('status 200 {"n":3}\n0cc175b9c0f1b6a831c399e269772661 aGk=')
  })

  it('lets a pre-request script change the request', async () => {
    const out = await runScript(
      "request.headers['X-Signed'] = sha256('x'); request.url = request.url + '?a=1'; variables.set('path', 'items')",
      input,
      limits,
    )
    expect(out.ok).toBe(true)
    expect(out.request?.headers['X-Signed']).toMatch(/^[0-9a-f]{64}$/)
    expect(out.request?.url).toBe('http://localhost/{{path}}?a=1')
    expect(out.variables['path']).toBe('items')
  })

  it('reports a failed assert and a thrown error', async () => {
    expect(
      await runScript('assert.equal(response.status, 404, "wrong status")', input, limits),
    ).toMatchObject({ ok: false, error: 'AssertionError: wrong status' })
    expect(await runScript('throw new TypeError("boom")', input, limits)).toMatchObject({
      ok: false,
      error: 'TypeError: boom',
    })
    expect(await runScript('this is not javascript', input, limits)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^SyntaxError/) as unknown,
    })
  })

  it('refuses process, require, the file system and the network', async () => {
    const probes = [
      'process.exit(1)',
      'require("fs").readFileSync("/etc/passwd")',
      'fetch("http://127.0.0.1:1/")',
      'new XMLHttpRequest()',
      'std.loadFile("/etc/passwd")',
      'os.exec(["ls"])',
      'setTimeout(function () {}, 1)',
    ]
    for (const probe of probes) {
      const out = await runScript(probe, input, limits)
      expect(out.ok, probe).toBe(false)
      expect(out.error, probe).toMatch(
        /not defined|not supported|ReferenceError|TypeError|could not|import/,
      )
    }
    const dynamicImport = await runScript(
      "import('fs').then(function () { variables.set('fs', 'loaded') }, function (e) { variables.set('fs', 'refused: ' + e) })",
      input,
      limits,
    )
    expect(dynamicImport.variables['fs']).toMatch(/^refused: /)
    const types = await runScript(
      'log(typeof process, typeof require, typeof fetch, typeof std, typeof os, typeof Deno, typeof Buffer)',
      input,
      limits,
    )
    expect(types.output).toBe(
      'undefined undefined undefined undefined undefined undefined undefined',
    )
  })

  it('stops an infinite loop at the time limit and keeps working', async () => {
    const started = Date.now()
    const out = await runScript('while (true) {}', input, {
      timeMs: 200,
      memoryBytes: limits.memoryBytes,
    })
    expect(out).toMatchObject({
      ok: false,
      error: 'the script was stopped: it ran longer than the time limit',
    })
    // the loop never ends by itself: a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(await runScript('variables.set("after", "yes")', input, limits)).toMatchObject({
      ok: true,
      variables: { after: 'yes' },
    })
  })

  it('stops unbounded allocation at the memory limit', async () => {
    const out = await runScript(
      'var a = []; for (;;) a.push({ x: Math.random(), y: [1, 2, 3] })',
      input,
      { timeMs: 5000, memoryBytes: 4 * 1024 * 1024 },
    )
    expect(out.ok).toBe(false)
    expect(out.error).toMatch(/memory limit|time limit/)
  })

  it('terminates a script stuck in one long native operation and replaces the engine', async () => {
    const started = Date.now()
    const out = await runScript('var a = []; for (;;) a.push(new Array(100000).fill(1))', input, {
      timeMs: 200,
      memoryBytes: 32 * 1024 * 1024,
    })
    expect(out.ok).toBe(false)
    expect(out.error).toMatch(/time limit|memory limit/)
    // a bound on hanging, far above the usual time, not a speed figure (the test machine is shared)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(await runScript('log("still here")', input, limits)).toMatchObject({
      ok: true,
      output: 'still here',
    })
  })

  it('keeps the event loop free while a script runs (the sandbox is a worker)', async () => {
    let ticks = 0
    const timer = setInterval(() => {
      ticks++
    }, 10)
    const out = await runScript('var t = Date.now(); while (Date.now() - t < 300) {}', input, {
      timeMs: 2000,
      memoryBytes: limits.memoryBytes,
    })
    clearInterval(timer)
    expect(out.ok).toBe(true)
    expect(ticks).toBeGreaterThan(3)
  })
  describe('helper libraries (loaded only when a script names them)', () => {
    const libLimits = { timeMs: 2000, memoryBytes: 32 * 1024 * 1024 }

    it('offers lodash as _', async () => {
      const out = await runScript(
        "var d = JSON.parse(response.body); variables.set('sorted', _.sortBy([3, 1, 2]).join(',')); variables.set('sum', _.sum(d.items)); variables.set('picked', JSON.stringify(_.pick({ a: 1, b: 2 }, 'a')))",
        input,
        libLimits,
      )
      expect(out).toMatchObject({
        ok: true,
        variables: { sorted: '1,2,3', sum: '6', picked: '{"a":1}' },
      })
    })

    it('offers moment', async () => {
      const out = await runScript(
        "variables.set('day', moment.utc(0).add(1, 'day').format('YYYY-MM-DD')); variables.set('unix', String(moment.utc('2020-01-01T00:00:00Z').unix()))",
        input,
        libLimits,
      )
      expect(out).toMatchObject({ ok: true, variables: { day: '1970-01-02', unix: '1577836800' } })
    })

    it('offers CryptoJS, with random numbers from the host', async () => {
      const out = await runScript(
        [
          "variables.set('hmac', CryptoJS.HmacSHA256('message', 'key').toString());",
          "variables.set('b64', CryptoJS.enc.Base64.stringify(CryptoJS.enc.Utf8.parse('hi')));",
          "var sealed = CryptoJS.AES.encrypt('secret', 'passphrase').toString();",
          "variables.set('roundtrip', CryptoJS.AES.decrypt(sealed, 'passphrase').toString(CryptoJS.enc.Utf8));",
          "variables.set('random', CryptoJS.lib.WordArray.random(16).toString());",
        ].join('\n'),
        input,
        libLimits,
      )
      expect(out.error).toBeNull()
      expect(out.variables['hmac']).toBe(
        '6e9ef29b75fffc5b7abae527d58fdadb2fe42e7219011976917343065f58ed4a',
      )
      expect(out.variables['b64']).toBe('aGk=')
      expect(out.variables['roundtrip']).toBe('secret')
      expect(out.variables['random']).toMatch(/^[0-9a-f]{32}$/)
    })

    it('offers tv4 to validate JSON Schema', async () => {
      const out = await runScript(
        [
          "var schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'number' } } } };",
          "variables.set('valid', String(tv4.validate(JSON.parse(response.body), schema)));",
          "variables.set('invalid', String(tv4.validate({ items: ['x'] }, schema)) + ': ' + tv4.error.message);",
        ].join('\n'),
        input,
        libLimits,
      )
      expect(out).toMatchObject({
        ok: true,
        variables: { valid: 'true', invalid: 'false: Invalid type: string (expected number)' },
      })
    })

    it('does not load a library a script does not name', async () => {
      // The names are assembled at run time, so that the source itself names no library.
      const out = await runScript(
        "log(['_', 'mo' + 'ment', 'Crypto' + 'JS', 't' + 'v4'].map(function (n) { return typeof globalThis[n] }).join(' '))",
        input,
        libLimits,
      )
      expect(out.output).toBe('undefined undefined undefined undefined')
    })

    it('opens no way out of the sandbox through the libraries', async () => {
      const out = await runScript(
        [
          "_.noop(); moment(); CryptoJS.MD5('x'); tv4.validate(1, {});",
          // lodash's template compiles code with Function: still inside QuickJS.
          "log(_.template('<%= typeof process %> <%= typeof require %>')());",
          'log(typeof process, typeof require, typeof module, typeof global, typeof fetch, typeof std, typeof os);',
          "log(typeof Function('return this')().process);",
        ].join('\n'),
        input,
        libLimits,
      )
      expect(out.error).toBeNull()
      expect(out.output).toBe(
        'undefined undefined\nundefined undefined undefined undefined undefined undefined undefined\nundefined',
      )
    })

    it('keeps the time and memory limits with a library loaded', async () => {
      const loop = await runScript('_.noop(); while (true) {}', input, {
        timeMs: 200,
        memoryBytes: 32 * 1024 * 1024,
      })
      expect(loop).toMatchObject({
        ok: false,
        error: 'the script was stopped: it ran longer than the time limit',
      })
      const hog = await runScript('var a = []; for (;;) a.push(_.range(1000))', input, {
        timeMs: 3000,
        memoryBytes: 16 * 1024 * 1024,
      })
      expect(hog.ok).toBe(false)
      expect(hog.error).toMatch(/memory limit|time limit/)
    })
  })
})

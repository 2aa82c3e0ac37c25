import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto'
import { librariesFor } from './sandbox-libraries.js'
import {
  getQuickJS,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from 'quickjs-emscripten'

/*
 * User scripts run in QuickJS compiled to WebAssembly: a separate JavaScript engine with its own
 * heap, no `process`, `require`, file system, network or timers. Each script gets a fresh runtime
 * with a memory limit and a deadline enforced by the interrupt handler. This module runs inside
 * the sandbox worker (sandbox-worker.ts), so that even a slow native operation inside QuickJS
 * never holds the platform's event loop, and the worker can be terminated as a last resort.
 */

let quickjs: Promise<QuickJSWASMModule> | null = null

function engine(): Promise<QuickJSWASMModule> {
  quickjs ??= getQuickJS()
  return quickjs
}

export interface ScriptLimits {
  timeMs: number
  memoryBytes: number
}

/** What a script sees (plain JSON) and what it may change: the variables and, before a request, the request. */
export interface ScriptInput {
  variables: Record<string, string>
  request: ScriptRequest | null
  response: ScriptResponse | null
}

export interface ScriptRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string
  form: Record<string, string>
}

export interface ScriptResponse {
  status: number
  status_code: number
  reason: string
  headers: Record<string, string>
  body: string
  response_time_ms: number
  size_bytes: number
}

export interface ScriptOutcome {
  ok: boolean
  error: string | null
  output: string
  variables: Record<string, string>
  request: ScriptRequest | null
}

const MAX_OUTPUT = 64 * 1024
const PRELUDE_DEADLINE_MS = 10_000

/** Loads and exercises the engine once, so that the first user script does not pay for compiling it. */
export async function warmUp(): Promise<void> {
  await evaluateScript(
    '1',
    { variables: {}, request: null, response: null },
    { timeMs: PRELUDE_DEADLINE_MS, memoryBytes: 16 * 1024 * 1024 },
  )
}

/** The script API, defined inside the sandbox before the user's code. */
const PRELUDE = String.raw`
(function () {
  var input = JSON.parse(__input);
  var vars = Object.assign(Object.create(null), input.variables);
  var logs = [];
  function fmt (a) { if (typeof a === 'string') return a; try { return JSON.stringify(a); } catch (e) { return String(a); } }
  function log () { logs.push(Array.prototype.map.call(arguments, fmt).join(' ')); }
  globalThis.__state = { logs: logs, vars: vars };
  globalThis.log = log;
  globalThis.console = { log: log, info: log, warn: log, error: log, debug: log };
  globalThis.variables = {
    get: function (name) { var v = Object.prototype.hasOwnProperty.call(vars, String(name)) ? vars[String(name)] : undefined; return v === undefined ? null : v; },
    set: function (name, value) { vars[String(name)] = value === null || value === undefined ? '' : typeof value === 'string' ? value : fmt(value); },
    has: function (name) { return Object.prototype.hasOwnProperty.call(vars, String(name)); },
    all: function () { var out = {}; Object.keys(vars).forEach(function (k) { Object.defineProperty(out, k, { value: vars[k], enumerable: true, writable: true, configurable: true }); }); return out; }
  };
  globalThis.request = input.request;
  globalThis.response = input.response;
  function fail (message, fallback) { var e = new Error(message || fallback); e.name = 'AssertionError'; throw e; }
  function same (a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function includes (hay, needle) {
    if (typeof hay === 'string') return hay.indexOf(String(needle)) !== -1;
    if (Array.isArray(hay)) return hay.some(function (x) { return same(x, needle); });
    if (hay !== null && typeof hay === 'object') return Object.keys(needle || {}).every(function (k) { return same(hay[k], needle[k]); });
    return false;
  }
  var assert = function (value, message) { if (!value) fail(message, 'expected ' + fmt(value) + ' to be truthy'); };
  assert.ok = assert;
  assert.isOk = assert;
  assert.notOk = function (v, m) { if (v) fail(m, 'expected ' + fmt(v) + ' to be falsy'); };
  assert.isNotOk = assert.notOk;
  assert.isTrue = function (v, m) { if (v !== true) fail(m, 'expected ' + fmt(v) + ' to be true'); };
  assert.isFalse = function (v, m) { if (v !== false) fail(m, 'expected ' + fmt(v) + ' to be false'); };
  assert.equal = function (a, b, m) { if (a != b) fail(m, 'expected ' + fmt(a) + ' to equal ' + fmt(b)); };
  assert.notEqual = function (a, b, m) { if (a == b) fail(m, 'expected ' + fmt(a) + ' to not equal ' + fmt(b)); };
  assert.strictEqual = function (a, b, m) { if (a !== b) fail(m, 'expected ' + fmt(a) + ' to strictly equal ' + fmt(b)); };
  assert.notStrictEqual = function (a, b, m) { if (a === b) fail(m, 'expected ' + fmt(a) + ' to not strictly equal ' + fmt(b)); };
  assert.deepEqual = function (a, b, m) { if (!same(a, b)) fail(m, 'expected ' + fmt(a) + ' to deeply equal ' + fmt(b)); };
  assert.notDeepEqual = function (a, b, m) { if (same(a, b)) fail(m, 'expected ' + fmt(a) + ' to not deeply equal ' + fmt(b)); };
  assert.isAbove = function (a, b, m) { if (!(a > b)) fail(m, 'expected ' + fmt(a) + ' to be above ' + fmt(b)); };
  assert.isAtLeast = function (a, b, m) { if (!(a >= b)) fail(m, 'expected ' + fmt(a) + ' to be at least ' + fmt(b)); };
  assert.isBelow = function (a, b, m) { if (!(a < b)) fail(m, 'expected ' + fmt(a) + ' to be below ' + fmt(b)); };
  assert.isAtMost = function (a, b, m) { if (!(a <= b)) fail(m, 'expected ' + fmt(a) + ' to be at most ' + fmt(b)); };
  assert.include = function (h, n, m) { if (!includes(h, n)) fail(m, 'expected ' + fmt(h) + ' to include ' + fmt(n)); };
  assert.notInclude = function (h, n, m) { if (includes(h, n)) fail(m, 'expected ' + fmt(h) + ' to not include ' + fmt(n)); };
  assert.isNull = function (v, m) { if (v !== null) fail(m, 'expected ' + fmt(v) + ' to be null'); };
  assert.isNotNull = function (v, m) { if (v === null) fail(m, 'expected value to not be null'); };
  assert.isDefined = function (v, m) { if (v === undefined) fail(m, 'expected value to be defined'); };
  assert.isUndefined = function (v, m) { if (v !== undefined) fail(m, 'expected ' + fmt(v) + ' to be undefined'); };
  assert.isString = function (v, m) { if (typeof v !== 'string') fail(m, 'expected ' + fmt(v) + ' to be a string'); };
  assert.isNumber = function (v, m) { if (typeof v !== 'number') fail(m, 'expected ' + fmt(v) + ' to be a number'); };
  assert.isArray = function (v, m) { if (!Array.isArray(v)) fail(m, 'expected ' + fmt(v) + ' to be an array'); };
  assert.isObject = function (v, m) { if (v === null || typeof v !== 'object') fail(m, 'expected ' + fmt(v) + ' to be an object'); };
  assert.lengthOf = function (v, n, m) { if (!v || v.length !== n) fail(m, 'expected ' + fmt(v) + ' to have length ' + n); };
  assert.match = function (v, re, m) { if (!re.test(v)) fail(m, 'expected ' + fmt(v) + ' to match ' + String(re)); };
  assert.property = function (o, p, m) { if (o === null || typeof o !== 'object' || !(p in o)) fail(m, 'expected ' + fmt(o) + ' to have property ' + fmt(p)); };
  assert.fail = function (m) { fail(m, 'assert.fail()'); };
  globalThis.assert = assert;
  var h = __host;
  globalThis.md5 = function (v) { return h('md5', String(v)); };
  globalThis.sha1 = function (v) { return h('sha1', String(v)); };
  globalThis.sha256 = function (v) { return h('sha256', String(v)); };
  globalThis.sha512 = function (v) { return h('sha512', String(v)); };
  globalThis.hmac_sha1 = function (v, k) { return h('hmac_sha1', String(v), String(k)); };
  globalThis.hmac_sha256 = function (v, k) { return h('hmac_sha256', String(v), String(k)); };
  globalThis.encode_base64 = function (v) { return h('encode_base64', String(v)); };
  globalThis.decode_base64 = function (v) { return h('decode_base64', String(v)); };
  globalThis.btoa = globalThis.encode_base64;
  globalThis.atob = globalThis.decode_base64;
  globalThis.uuid = function () { return h('uuid', ''); };
  globalThis.timestamp = function () { return Math.floor(Date.now() / 1000); };
  globalThis.helpers = { md5: md5, sha1: sha1, sha256: sha256, sha512: sha512, hmac_sha1: hmac_sha1, hmac_sha256: hmac_sha256, encode_base64: encode_base64, decode_base64: decode_base64, uuid: uuid, timestamp: timestamp };
})();
`

/** The host helpers a script may call: pure functions of their string arguments. */
function hostHelper(name: string, value: string, key: string): string {
  switch (name) {
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
      return createHash(name).update(value).digest('hex')
    case 'hmac_sha1':
      return createHmac('sha1', key).update(value).digest('hex')
    case 'hmac_sha256':
      return createHmac('sha256', key).update(value).digest('hex')
    case 'encode_base64':
      return Buffer.from(value, 'utf8').toString('base64')
    case 'decode_base64':
      return Buffer.from(value, 'base64').toString('utf8')
    case 'uuid':
      return randomUUID()
    // crypto-js's random source (sandbox-libraries.ts): at most 64 KiB per call, as Web Crypto allows.
    case 'random_bytes':
      return randomBytes(Math.min(Math.max(Number.parseInt(value, 10) || 0, 0), 65536)).toString(
        'hex',
      )
    default:
      return ''
  }
}

function errorText(vm: QuickJSContext, handle: QuickJSHandle, interrupted: boolean): string {
  if (interrupted) return 'the script was stopped: it ran longer than the time limit'
  const dumped: unknown = vm.dump(handle)
  if (dumped !== null && typeof dumped === 'object') {
    const e = dumped as { name?: unknown; message?: unknown }
    const name = typeof e.name === 'string' ? e.name : 'Error'
    const message = typeof e.message === 'string' ? e.message : JSON.stringify(dumped)
    if (/out of memory/i.test(message) || (name === 'InternalError' && /memory/i.test(message))) {
      return 'the script was stopped: it used more than the memory limit'
    }
    return `${name}: ${message}`
  }
  const text = String(dumped)
  return /out of memory/i.test(text)
    ? 'the script was stopped: it used more than the memory limit'
    : text
}

function clipOutput(logs: unknown): string {
  if (!Array.isArray(logs)) return ''
  let out = logs.map((l) => (typeof l === 'string' ? l : String(l))).join('\n')
  if (out.length > MAX_OUTPUT) out = out.slice(0, MAX_OUTPUT) + '\n[output truncated]'
  return out
}

function stringRecord(value: unknown): Record<string, string> {
  // No prototype: a variable named `__proto__` is kept as data, not swallowed by its setter.
  const out: Record<string, string> = Object.create(null) as Record<string, string>
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out
  for (const [k, v] of Object.entries(value)) {
    out[k] = typeof v === 'string' ? v : (JSON.stringify(v) ?? '')
  }
  return out
}

function readRequest(value: unknown, fallback: ScriptRequest | null): ScriptRequest | null {
  if (fallback === null || value === null || typeof value !== 'object') return fallback
  const r = value as Record<string, unknown>
  return {
    method: typeof r['method'] === 'string' ? r['method'] : fallback.method,
    url: typeof r['url'] === 'string' ? r['url'] : fallback.url,
    headers: r['headers'] !== undefined ? stringRecord(r['headers']) : fallback.headers,
    body: typeof r['body'] === 'string' ? r['body'] : fallback.body,
    form: r['form'] !== undefined ? stringRecord(r['form']) : fallback.form,
  }
}

/**
 * Runs one script in a fresh sandbox. Never throws for anything the script does: errors,
 * failed asserts, the time and memory limits all come back as `ok: false` with the reason.
 */
export async function evaluateScript(
  source: string,
  input: ScriptInput,
  limits: ScriptLimits,
): Promise<ScriptOutcome> {
  const module = await engine()
  const runtime = module.newRuntime()
  runtime.setMemoryLimit(limits.memoryBytes)
  runtime.setMaxStackSize(512 * 1024)
  let interrupted = false
  const arm = (ms = limits.timeMs): void => {
    const deadline = shouldInterruptAfterDeadline(Date.now() + ms)
    runtime.setInterruptHandler((rt) => {
      if (deadline(rt)) {
        interrupted = true
        return true
      }
      return false
    })
  }
  const vm = runtime.newContext()
  const failed = (error: string, output = ''): ScriptOutcome => ({
    ok: false,
    error,
    output,
    variables: input.variables,
    request: input.request,
  })
  try {
    const inputHandle = vm.newString(JSON.stringify(input))
    vm.setProp(vm.global, '__input', inputHandle)
    inputHandle.dispose()
    const host = vm.newFunction('__host', (...args) => {
      const [name = '', value = '', key = ''] = args.map((a) => {
        const s: unknown = vm.dump(a)
        return typeof s === 'string' ? s : String(s)
      })
      return vm.newString(hostHelper(name, value, key))
    })
    vm.setProp(vm.global, '__host', host)
    host.dispose()
    // The prelude is ours and bounded; a cold engine (first use, a loaded machine) may need more
    // than a short user limit for it, so it gets its own deadline.
    arm(PRELUDE_DEADLINE_MS)
    const prelude = vm.evalCode(PRELUDE, 'prelude.js')
    if (prelude.error !== undefined) {
      const text = errorText(vm, prelude.error, interrupted)
      prelude.error.dispose()
      return failed(`the script environment could not start: ${text}`)
    }
    prelude.value.dispose()
    // Libraries the script names (lodash, moment, CryptoJS, tv4) load under the prelude's deadline
    // (they are ours, not the user's time), but inside the same memory limit.
    for (const library of librariesFor(source)) {
      const loaded = vm.evalCode(library.code, library.name)
      if (loaded.error !== undefined) {
        const text = errorText(vm, loaded.error, interrupted)
        loaded.error.dispose()
        return failed(`the script environment could not load ${library.name}: ${text}`)
      }
      loaded.value.dispose()
    }

    arm()
    const result = vm.evalCode(source, 'script.js')
    let error: string | null = null
    if (result.error !== undefined) {
      error = errorText(vm, result.error, interrupted)
      result.error.dispose()
    } else {
      result.value.dispose()
      // Promise callbacks (`.then`) run now, under the same deadline.
      const jobs = runtime.executePendingJobs()
      if (jobs.error !== undefined) {
        error = errorText(vm, jobs.error, interrupted)
        jobs.error.dispose()
      }
    }
    // Read the state back within a fresh deadline: the script may have booby-trapped it (getters).
    interrupted = false
    arm(Math.max(limits.timeMs, 1000))
    const state = vm.evalCode(
      'JSON.stringify({ logs: __state.logs, vars: __state.vars, request: globalThis.request })',
      'state.js',
    )
    if (state.error !== undefined) {
      const text = errorText(vm, state.error, interrupted)
      state.error.dispose()
      return failed(error ?? `the script left an unreadable state: ${text}`)
    }
    const json: unknown = vm.dump(state.value)
    state.value.dispose()
    let parsed: { logs?: unknown; vars?: unknown; request?: unknown } = {}
    try {
      parsed = typeof json === 'string' ? (JSON.parse(json) as typeof parsed) : {}
    } catch {
      parsed = {}
    }
    return {
      ok: error === null,
      error,
      output: clipOutput(parsed.logs),
      variables: stringRecord(parsed.vars),
      request: readRequest(parsed.request, input.request),
    }
  } catch (err) {
    // A failure of the engine itself (not of the script): report it, never crash the platform.
    return failed(`the script could not run: ${err instanceof Error ? err.message : String(err)}`)
  } finally {
    try {
      vm.dispose()
      runtime.dispose()
    } catch {
      // A runtime whose script was stopped mid-allocation may refuse a clean dispose; it is dropped.
    }
  }
}

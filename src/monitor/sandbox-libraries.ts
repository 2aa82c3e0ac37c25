import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/*
 * The helper libraries the product's scripts use (lodash as `_`, moment, CryptoJS, tv4), loaded
 * into a script's QuickJS context only when its source names them: evaluating all four costs tens
 * of milliseconds and several megabytes per script, which most scripts do not need. The sources
 * are the installed packages' browser builds, read from disk once per worker and kept as strings;
 * they are evaluated inside the sandbox like the user's code, so they reach nothing the script
 * could not reach itself (no `require`, `process`, file system or network exists in there).
 */

interface Library {
  /** The global the library defines in the sandbox. */
  global: string
  /** Whether a script's source refers to the library (a cheap test; a false positive only costs time). */
  usedBy: RegExp
  /** The package file to evaluate (a UMD build that assigns its global when there is no module system). */
  file: string
  /** Code run before the library, inside the sandbox. */
  before?: string
}

/**
 * crypto-js draws random numbers (salts, `WordArray.random`) from `globalThis.crypto`: backed by
 * the host's CSPRNG through the sandbox's one host function, which returns bytes and nothing else.
 */
const CRYPTO_SHIM = String.raw`
globalThis.crypto = { getRandomValues: function (array) {
  var bytes = __host('random_bytes', String(array.byteLength));
  var view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (var i = 0; i < view.length; i++) view[i] = parseInt(bytes.substr(i * 2, 2), 16);
  return array;
} };
`

const LIBRARIES: readonly Library[] = [
  { global: '_', usedBy: /(?:^|[^\w$.])_\s*[.(]|\blodash\b/, file: 'lodash/lodash.min.js' },
  { global: 'moment', usedBy: /\bmoment\b/, file: 'moment/min/moment.min.js' },
  {
    global: 'CryptoJS',
    usedBy: /\bCryptoJS\b/,
    file: 'crypto-js/crypto-js.js',
    before: CRYPTO_SHIM,
  },
  { global: 'tv4', usedBy: /\btv4\b/, file: 'tv4/tv4.js' },
]

const require = createRequire(import.meta.url)
const sources = new Map<string, string>()

/** A library's source, read once. */
function sourceOf(library: Library): string {
  let source = sources.get(library.file)
  if (source === undefined) {
    source = readFileSync(require.resolve(library.file), 'utf8')
    sources.set(library.file, source)
  }
  return source
}

/** The libraries a script needs, each with the code to evaluate (shim first). */
export function librariesFor(script: string): Array<{ name: string; code: string }> {
  const out: Array<{ name: string; code: string }> = []
  for (const library of LIBRARIES) {
    if (!library.usedBy.test(script)) continue
    if (library.before !== undefined) {
      out.push({ name: `${library.global}-shim.js`, code: library.before })
    }
    out.push({ name: library.file, code: sourceOf(library) })
  }
  return out
}

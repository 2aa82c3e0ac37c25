import { readFileSync, statSync } from 'node:fs'
import { createError, isUnderstudyError } from '../errors/index.js'
import {
  parseBytes,
  parseText,
  readDefinition,
  recordSourceText,
  utf8Error,
  type MockServiceDocument,
} from '../dsl/index.js'
import type { RequestCheck } from '../serve/index.js'

/**
 * The document `understudy run --mock` serves. A mock-service document or DSL file (JSON or YAML,
 * whatever its extension: a YAML file mounted as `/config/mock.json` works) is read directly,
 * without loading the importers; anything else `serve` reads (HAR, OpenAPI, WireMock, Postman,
 * RR pairs, a directory of them) goes through the importers, as in `serve`. A file neither can
 * read is refused with a message naming `understudy import`.
 *
 * @example
 * const document = await loadRunDocument('/config/openapi.yaml')
 */
export async function loadRunDocument(file: string): Promise<MockServiceDocument> {
  let isDirectory = false
  try {
    isDirectory = statSync(file).isDirectory()
  } catch (err) {
    throw createError('ERR_CONFIG_FILE', [
      file,
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message,
    ])
  }
  if (!isDirectory) {
    const direct = readDirectly(file)
    if (direct !== null) return direct
  }
  const [{ collectFiles, givenFiles, loadSources }, { importFile, supportedExtensions }] =
    await Promise.all([import('./sources.js'), import('../../importers/index.js')])
  try {
    const files = collectFiles({
      paths: [file],
      include: [],
      exclude: [],
      extensions: supportedExtensions,
    })
    return loadSources(files, (input, ctx) => importFile(input, ctx), { named: givenFiles([file]) })
      .document
  } catch (err) {
    if (
      isUnderstudyError(err) &&
      !isDirectory &&
      unrecognised(() => importFile({ bytes: readFileSync(file), fileName: file }))
    ) {
      // Neither reads it, and it is not UTF-8: that is what to say.
      const notUtf8 = utf8Error(readFileSync(file), file)
      if (notUtf8 !== null) {
        throw createError('ERR_CONFIG_FILE', [
          file,
          notUtf8.details?.[0]?.message ?? notUtf8.message,
        ])
      }
      throw createError('ERR_CONFIG_FILE', [
        file,
        `${err.details?.[0]?.message ?? err.message}. It is not a file understudy can serve; convert it with "understudy import ${file} -o mock.yaml" and run that`,
      ])
    }
    throw err
  }
}

/** The document when the file is Understudy's own DSL (JSON or YAML), else null. */
function readDirectly(file: string): MockServiceDocument | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (err) {
    throw createError('ERR_CONFIG_FILE', [file, (err as Error).message])
  }
  const notUtf8 = utf8Error(bytes, file)
  if (notUtf8 !== null) {
    // A DSL file with bytes that are not UTF-8 is refused rather than served with U+FFFD; text in
    // another encoding (a UTF-16 export) is left to the importers, which decode it.
    if (isDsl(bytes.toString('utf8'), file)) throw notUtf8
    return null
  }
  for (const name of [file, `${file}.yaml`]) {
    try {
      const parsed = parseBytes(bytes, name)
      if (!looksLikeDsl(parsed.value)) return null
      const doc = readDefinition(parsed.value, { file, locate: parsed.locate })
      // The runtime keeps these bytes instead of the document, and reads them again when asked.
      recordSourceText(doc, { bytes, fileName: name })
      return doc
    } catch (err) {
      // A DSL document with mistakes keeps its own precise error; a parse failure is retried as
      // YAML, then left to the importers.
      if (isUnderstudyError(err, 'ERR_DSL_INVALID')) throw err
    }
  }
  return null
}

/** True when `text`, read as JSON or YAML, is a DSL document. */
function isDsl(text: string, file: string): boolean {
  for (const name of [file, `${file}.yaml`]) {
    try {
      return looksLikeDsl(parseText(text, name).value)
    } catch {
      // not this format
    }
  }
  return false
}

/** A mock-service document, a list of transactions, or one transaction / dsl. */
function looksLikeDsl(value: unknown): boolean {
  if (Array.isArray(value)) {
    return value.every(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        ('dsl' in v || 'requestDsl' in v || 'responseDsl' in v),
    )
  }
  if (typeof value !== 'object' || value === null) return false
  return 'transactions' in value || 'dsl' in value || 'requestDsl' in value
}

/** True when the importers do not recognise the file's format (asked again, on failure only). */
function unrecognised(load: () => unknown): boolean {
  try {
    load()
    return false
  } catch (err) {
    return isUnderstudyError(err, 'ERR_IMPORT_FORMAT_UNKNOWN')
  }
}

/**
 * `run --validate-requests`: request validation from the OpenAPI descriptions of the file (or
 * directory); null when it holds none.
 *
 * @example
 * const check = await runRequestCheck('/config/openapi.yaml')
 */
export async function runRequestCheck(file: string): Promise<RequestCheck | null> {
  const [{ collectFiles }, { openApiRequestValidator, supportedExtensions }] = await Promise.all([
    import('./sources.js'),
    import('../../importers/index.js'),
  ])
  const files = collectFiles({
    paths: [file],
    include: [],
    exclude: [],
    extensions: supportedExtensions,
  })
  const built = openApiRequestValidator(files.map((f) => ({ bytes: readFileSync(f), fileName: f })))
  return built.operations === 0 ? null : built.validate
}

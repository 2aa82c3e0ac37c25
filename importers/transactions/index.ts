import {
  joinPointer,
  readDefinition,
  recordOrigin,
  type MockServiceDocument,
} from '../../src/dsl/index.js'
import { createError, isUnderstudyError, type ErrorDetail } from '../../src/errors/index.js'
import { guardImport, importInvalid } from '../shared/errors.js'
import { isObject, parseStructured, str, type Loose } from '../shared/structured.js'
import type { ImportContext, ImportInput, ImportResult, ImportWarning } from '../types.js'
import { decodedMatcherValue } from './base64.js'

/**
 * Imports exported transactions (the mock services specification's "Transaction"): one transaction resource or an array of
 * them, a mock-service document, the API envelope `{apiVersion, result}` around any of those, or
 * convert results `{nativeId, priority, requestDsl, responseDsl}` (named after `nativeId`).
 * Everything is validated by the DSL's `readDefinition`, errors pointing into the file. Body
 * matcher values that the export base64-encoded are decoded (rule in ./base64.ts), each with a
 * warning.
 *
 * @example
 * importTransactions({ bytes: Buffer.from('{"apiVersion":1,"result":[{"id":1,"name":"a","dsl":{"requestDsl":{}}}]}'), fileName: 'export.json' })
 */
export function importTransactions(input: ImportInput, _ctx: ImportContext = {}): ImportResult {
  const parsed = parseStructured(input)
  const file = input.fileName
  return guardImport(file, () => {
    let value: unknown = parsed.value
    let prefix = ''
    if (isObject(value) && 'apiVersion' in value && ('result' in value || 'error' in value)) {
      const error = value['error']
      if (
        error !== null &&
        error !== undefined &&
        (value['result'] === null || value['result'] === undefined)
      ) {
        const reason =
          typeof error === 'string'
            ? error
            : (str(isObject(error) ? error['message'] : undefined) ?? JSON.stringify(error))
        throw importInvalid(file, `is an error response of the API, not transactions: ${reason}`, [
          { path: '/error', message: reason, file },
        ])
      }
      value = value['result']
      prefix = '/result'
    }
    const warnings: ImportWarning[] = []
    value = decodeBodies(value, prefix, file, warnings)
    const locate = (pointer: string) => parsed.locate(prefix + pointer)
    let doc: MockServiceDocument
    try {
      doc = readDefinition(value, { file, locate })
    } catch (err) {
      if (!isUnderstudyError(err, 'ERR_DSL_INVALID') || prefix === '') throw err
      const details: ErrorDetail[] = (err.details ?? []).map((d) => ({
        ...d,
        path: prefix + d.path,
      }))
      throw createError(
        'ERR_DSL_INVALID',
        [`${file}: ${details.length === 1 ? '1 error' : `${details.length} errors`}`],
        { details },
      )
    }
    const items = itemsOf(value)
    doc.transactions.forEach((txn, i) => {
      const item = items[i]
      if (item === undefined) return
      if (!('dsl' in item.value)) {
        // a convert result is a bare dsl; its nativeId is the only name it has
        const nativeId = str(item.value['nativeId'])
        if (nativeId !== undefined && nativeId !== '') txn.name = nativeId
      }
      const pointer = prefix + item.pointer
      recordOrigin(txn, {
        file,
        pointer,
        dslPointer: 'dsl' in item.value ? `${pointer}/dsl` : pointer,
        locate: parsed.locate,
      })
    })
    return { format: 'transactions', dslType: 'GENERIC_DSL', document: doc, warnings }
  })
}

/** The transaction-like items of an accepted shape, with their pointers (as readDefinition reads them). */
function itemsOf(value: unknown): Array<{ value: Loose; pointer: string }> {
  const list = Array.isArray(value)
    ? value.map((v, i) => ({ v, pointer: joinPointer('', i) }))
    : isObject(value) && Array.isArray(value['transactions'])
      ? value['transactions'].map((v, i) => ({ v, pointer: joinPointer('/transactions', i) }))
      : [{ v: value, pointer: '' }]
  return list
    .filter((e): e is { v: Loose; pointer: string } => isObject(e.v))
    .map((e) => ({ value: e.v, pointer: e.pointer }))
}

/** A copy of the value with base64 body matcher values decoded, one warning each. */
function decodeBodies(
  value: unknown,
  prefix: string,
  file: string,
  warnings: ImportWarning[],
): unknown {
  const copy: unknown = structuredClone(value)
  for (const item of itemsOf(copy)) {
    const dsl = 'dsl' in item.value ? item.value['dsl'] : item.value
    const dslPointer = 'dsl' in item.value ? `${item.pointer}/dsl` : item.pointer
    if (!isObject(dsl) || !isObject(dsl['requestDsl'])) continue
    const body = dsl['requestDsl']['body']
    if (!Array.isArray(body)) continue
    body.forEach((m: unknown, i) => {
      if (
        !isObject(m) ||
        typeof m['matchingValue'] !== 'string' ||
        typeof m['matcherName'] !== 'string'
      ) {
        return
      }
      const decoded = decodedMatcherValue(m['matcherName'], m['matchingValue'])
      if (decoded === undefined) return
      m['matchingValue'] = decoded
      warnings.push({
        message: `body matcher value was base64 and is decoded: ${JSON.stringify(decoded.length > 60 ? `${decoded.slice(0, 57)}...` : decoded)}`,
        file,
        at: `${prefix}${dslPointer}/requestDsl/body/${i}/matchingValue`,
      })
    })
  }
  return copy
}

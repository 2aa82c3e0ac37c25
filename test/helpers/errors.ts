import { isUnderstudyError, type UnderstudyError } from '../../src/errors/index.js'

/**
 * The UnderstudyError `fn` throws; fails the test when it throws nothing, and rethrows any other
 * error so that a crash is not mistaken for a refusal.
 *
 * @example
 * expect(thrown(() => importFile(bad)).code).toBe('ERR_IMPORT_INVALID')
 */
export function thrown(fn: () => unknown): UnderstudyError {
  try {
    fn()
  } catch (err) {
    if (isUnderstudyError(err)) return err
    throw err
  }
  throw new Error('expected an error')
}

// The scan lives in src/dsl (a `PUT /config` is parsed a transaction at a time with it too).
export { elementText, locateArray } from '../../src/dsl/index.js'

/**
 * Helpers shared by the importers: bytes to text, JSON/YAML parsing with positions, media types,
 * error construction, and the final validation of what an importer produced.
 */
export { decodeText, checkSize, DEFAULT_MAX_BYTES } from './text.js'
export { parseStructured } from './parse.js'
export { detailAt, importInvalid, guardImport, type Locate } from './errors.js'
export { parseMediaType, isJsonType, isXmlType, isTextType, type MediaType } from './mime.js'
export { finishImport, type FinishInput } from './finish.js'
export { uniqueNames, orderBySpecificity } from './naming.js'

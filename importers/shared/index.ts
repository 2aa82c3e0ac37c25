/**
 * The importers' one toolkit: bytes to text, JSON/YAML parsing with positions, media types, error
 * construction (one `importInvalid`, one position format, one wrapper for unknown throws), and the
 * final validation of what an importer produced. Every importer imports from here.
 */
export { decodeText, checkSize } from './text.js'
export { parseStructured, forgetStructured } from './structured.js'
export { detailAt, importInvalid, guardImport, type Locate } from './errors.js'
export { parseMediaType, isJsonType, isXmlType, isTextType, type MediaType } from './mime.js'
export { finishImport, type FinishInput } from './finish.js'
export { uniqueNames, orderBySpecificity, UniqueNamer, SpecificityOrder } from './naming.js'
export { harLayoutOf } from './har-layout.js'
export { elementText } from './array-layout.js'

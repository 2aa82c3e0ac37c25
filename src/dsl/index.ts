export * from './types.js'
export { parseText, pointerSegments, joinPointer, type ParsedText, type SourcePosition } from './parse.js'
export { readDefinition, type DefinitionSource } from './validate.js'
export { loadDefinitionText } from './definition.js'
export {
  normalizeTransaction,
  normalizeDocument,
  normalizeDelay,
  normalizeThinkTime,
  documentOf,
  encodeContent,
  decodeContent,
  DEFAULT_PRIORITY,
} from './normalize.js'
export { recordOrigin, originOf, detailAt, type Origin } from './origin.js'
export { compileUserRegex, RegexRejection } from './regex.js'
export { dslSchemas, transactionSchema, transactionDslSchema, mockServiceDocumentSchema, matcherSchema } from './schema/index.js'
export type { MatcherInput, RequestDslInput, ResponseDslInput, DelayInput, DslInput, TransactionInput, DocumentInput } from './input-types.js'
export { parseTemplate, validateTemplate, templateHelperNames, TemplateSyntaxError } from './template-check.js'

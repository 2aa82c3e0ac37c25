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
export { recordOrigin, originOf, detailAt, locatedDetail, type Origin } from './origin.js'
export { nearestName, closestName, editDistance } from './nearest-name.js'
export { compileUserRegex, RegexRejection, MAX_REGEX_INPUT } from './regex.js'
export { MAX_DEFINITION_DEPTH, tooDeepAt, jsonTextDepth } from './depth.js'
export { dslSchemas, transactionSchema, transactionDslSchema, mockServiceDocumentSchema, matcherSchema, publishedSchema, publishedSchemaPath } from './schema/index.js'
export type { StatusCodeConditionInput, MatcherInput, RequestDslInput, ResponseDslInput, DelayInput, DslInput, TransactionInput, DocumentInput } from './input-types.js'
export { parseTemplate, validateTemplate, templateHelperNames, TemplateSyntaxError } from './template-check.js'

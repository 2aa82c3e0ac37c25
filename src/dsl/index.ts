export * from './types.js'
export {
  parseBytes,
  parseText,
  utf8Error,
  pointerSegments,
  joinPointer,
  type ParsedText,
  type SourcePosition,
} from './parse.js'
export { readDefinition, readDefinitionSliced } from './validate.js'
export { loadDefinitionText } from './definition.js'
export {
  recordSourceText,
  keepAsOwnText,
  sourceTextOf,
  rereadDocument,
  rereadDocumentSliced,
  type SourceText,
} from './source-text.js'
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
export { recordOrigin, originOf, detailAt, locatedDetail } from './origin.js'
export {
  compileDateFormat,
  truncateInstant,
  dateTruncationNames,
  type DateTruncation,
} from './date-format.js'
export { compileUserRegex, RegexRejection, MAX_REGEX_INPUT, enableRegexFallback } from './regex.js'
export { MAX_DEFINITION_DEPTH, tooDeepAt, jsonTextDepth } from './depth.js'
export {
  MAX_TRANSACTIONS,
  transactionCountError,
  transactionCountProblem,
} from './transaction-limit.js'
export { parseJsonSliced } from './parse.js'
export { locateArray, elementText } from './array-layout.js'
export {
  dslSchemas,
  mockServiceDocumentSchema,
  publishedSchema,
  publishedSchemaPath,
} from './schema/index.js'
export type {
  MatcherInput,
  RequestDslInput,
  ResponseDslInput,
  DelayInput,
  DslInput,
  TransactionInput,
  DocumentInput,
} from './input-types.js'
export {
  parseTemplate,
  validateTemplate,
  walkTemplate,
  templateHelperNames,
  TemplateSyntaxError,
  type TemplateNode,
} from './template-check.js'
export { loadHandlebars } from './handlebars.js'
export {
  MAX_TEMPLATE_GENERATED,
  MAX_TEMPLATE_OUTPUT,
  TemplateBoundError,
  checkSize,
  checkTextArgument,
} from './template-bounds.js'
export { fakerMethods, fakerMethodOf, checkFakerArguments, fakeToken } from './faker-catalogue.js'

export {
  compileMatcher,
  compileMatcherSliced,
  collectCompileErrors,
  throwCompileErrors,
  type CompiledMatcher,
  type PayloadFactory,
  type ExtraPredicates,
} from './compile.js'
export type { CompiledTransaction } from './compiled.js'
export { MatchRequest } from './request.js'
export { prepareMultipart, preparePredicates } from './prepare.js'
export type { NearMiss } from './diagnose.js'
export type { ReportProblem, Predicate, PreparedPredicate } from './predicates/index.js'
export { isPrepared } from './predicates/index.js'
export { compileJsonPath } from './json.js'
export { parseXml } from './xml.js'
export { findConflicts, findShadowed, groupName, type ConflictSubject } from './conflicts.js'
// product DSL compatibility: statusCodeConditions reuse the body matcher compiler
export { compileBodyPredicate } from './predicates/body.js'
// The sandbox's matchingLog words, formatted from the near-miss diagnosis
export { failureInWords } from './diagnose-words.js'
// The monitoring runner evaluates its string comparisons with the mock DSL's own predicates (one predicate language).
export { compileValueCheck } from './predicates/value-check.js'
export { compileXPath, type XmlDocument } from './xml.js'
export { jsonValueText } from './json.js'
export { regexInputStats } from './predicates/value-check.js'
// matches_xml_schema: libxml2 in worker threads, and its bounds
export { XSD_LIMITS } from './xsd/xmllint-pool.js'

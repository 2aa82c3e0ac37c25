export { compileMatcher, compileMatcherSliced, collectCompileErrors, throwCompileErrors, type CompiledMatcher, type PayloadFactory, type ExtraPredicates } from './compile.js'
export type { CompiledTransaction } from './compiled.js'
export { MatchRequest, type FieldValue } from './request.js'
export { prepareMultipart, preparePredicates } from './prepare.js'
export type { NearMiss, FailedCondition } from './diagnose.js'
export type { ReportProblem, Predicate, RequestPart, PreparedPredicate } from './predicates/index.js'
export { isPrepared } from './predicates/index.js'
export { normalizePath } from './path.js'
export { jsonEquals, compileJsonPath } from './json.js'
export { canonicalXml, parseXml } from './xml.js'
export { findConflicts, findShadowed, groupName, type ConflictSubject, type Shadowed } from './conflicts.js'
// product DSL compatibility: statusCodeConditions reuse the body matcher compiler
export { compileBodyPredicate } from './predicates/body.js'
// The sandbox's matchingLog words, formatted from the near-miss diagnosis
export { failureInWords } from './diagnose-words.js'
// The monitoring runner evaluates its string comparisons with the mock DSL's own predicates (one predicate language).
export { compileValueCheck, type ValueCheck, type ValueCheckResult } from './predicates/value-check.js'
export { compileXPath, type CompiledXPath, type XmlDocument } from './xml.js'
export { jsonValueText } from './json.js'
export { regexInputStats } from './predicates/value-check.js'
// matches_xml_schema: libxml2 in worker threads, and its bounds
export { XSD_LIMITS, type XsdOutcome } from './xsd/xmllint-pool.js'

export { InspectionRing, type RingIds, type RecordOutcome } from './ring.js'
export type { InspectionRecord } from './record.js'
export { toListEntry, toDetail, type InspectionListEntry, type InspectionDetail } from './query.js'
export { filterFromQuery, filterParams, type InspectionFilter } from './filter.js'
export {
  readVerification,
  verify,
  mergeVerifications,
  newestFirst,
  type Verification,
  type VerificationResult,
  type VerificationMiss,
} from './verify.js'
export { inspectionSearch, allRecords, type UnmatchedEntry } from './search.js'
export { InspectionCursor, type FeedPage } from './feed.js'

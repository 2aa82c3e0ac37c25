export { InspectionRing, type RingLimits, type RingIds, type RecordOutcome } from './ring.js'
export type { InspectionRecord } from './record.js'
export { toListEntry, toDetail, type InspectionListEntry, type InspectionDetail } from './query.js'

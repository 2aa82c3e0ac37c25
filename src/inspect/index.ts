export { InspectionRing, truncateBody, type RingLimits } from './ring.js'
export type { InspectionRecord, NewInspectionRecord } from './record.js'
export { toListEntry, toDetail, type InspectionListEntry, type InspectionDetail } from './query.js'

import { compileFilter, type InspectionFilter } from './filter.js'
import { toListEntry, type InspectionListEntry } from './query.js'
import type { InspectionRecord } from './record.js'
import type { InspectionRing } from './ring.js'
import { verify, type Verification, type VerificationResult } from './verify.js'

/** An unmatched request, with the near-miss diagnosis the runtime made when it arrived. */
export interface UnmatchedEntry extends InspectionListEntry {
  diagnosis: unknown
}

/** Every record of a ring, newest first (null ring: none). Admin-time only: decodes them all. */
export function allRecords(ring: InspectionRing | null): InspectionRecord[] {
  return ring === null ? [] : ring.newest(0, ring.length)
}

/**
 * The verification queries over one ring: filtered pages, counts, unmatched requests with their
 * diagnosis, verifications and reset. The admin listener and the library API share them.
 *
 * @example
 * const search = inspectionSearch(() => runtime.ring, () => 0)
 * search.count({ matched: false }) // 2
 */
export function inspectionSearch(ring: () => InspectionRing | null, serviceMockId: () => number) {
  const filtered = (filter: InspectionFilter): InspectionRecord[] => {
    const test = compileFilter(filter)
    return allRecords(ring()).filter(test)
  }
  return {
    list(
      filter: InspectionFilter = {},
      skip = 0,
      limit = 50,
    ): { entries: InspectionListEntry[]; total: number } {
      const records = filtered(filter)
      const id = serviceMockId()
      return {
        entries: records.slice(skip, skip + limit).map((r) => toListEntry(r, id)),
        total: records.length,
      }
    },
    count(filter: InspectionFilter = {}): number {
      return filtered(filter).length
    },
    unmatched(
      filter: InspectionFilter = {},
      limit = 50,
    ): { entries: UnmatchedEntry[]; total: number } {
      const records = filtered({ ...filter, matched: false })
      const id = serviceMockId()
      return {
        entries: records
          .slice(0, limit)
          .map((r) => ({ ...toListEntry(r, id), diagnosis: r.matchingData })),
        total: records.length,
      }
    },
    verify(verification: Verification): VerificationResult {
      return verify(allRecords(ring()), verification, serviceMockId())
    },
    /** Forgets every record; answers how many were forgotten. */
    clear(): number {
      const current = ring()
      const held = current?.length ?? 0
      current?.clear()
      return held
    },
  }
}

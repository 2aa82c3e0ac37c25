/*
 * The cursor of a live feed over an inspection ring (the dashboard's Server-Sent Events, on the
 * platform and on a runtime's admin listener): each step reads the list newest first, page by
 * page, back to the last entry it delivered, so a burst of any size between two steps is
 * delivered whole, up to what the ring still holds. Entries the ring evicted before they were
 * read are counted (from the gap in record ids) so that the page can say so.
 */

/** Entries asked of the first step (the recent history a tab opens with). */
const FEED_RECENT = 100
/** One page of a later step, and the most pages one step reads. */
const FEED_PAGE = 1000
const MAX_PAGES = 100
/** Ids remembered as delivered; past this, only those of the latest step are kept. */
const SENT_LIMIT = 200_000

/** What a feed entry needs: an id (growing with time within a journal) and, once complete, a status. */
interface FeedEntry {
  id: number
  statusCode?: unknown
}

/** One page of the list, newest first, and how many entries the list holds in all. */
export interface FeedPage<E> {
  entries: readonly E[]
  total: number
}

/** What one step found: new entries (newest first), a reset (a new journal), how many were evicted unread. */
interface FeedStep<E> {
  kind: 'entries' | 'reset'
  entries: E[]
  dropped: number
}

function complete(e: FeedEntry): boolean {
  // A record still in flight (status 0) is delivered once it completes, so it shows its outcome.
  return typeof e.statusCode !== 'number' || e.statusCode > 0
}

/**
 * @example
 * const cursor = new InspectionCursor<Entry>()
 * const step = await cursor.next(async (skip, limit) => await readPage(skip, limit))
 * if (step !== null && step.entries.length > 0) push(step.entries)
 */
export class InspectionCursor<E extends FeedEntry> {
  /** The latest entries delivered (newest first), replayed to a tab that joins. */
  recent: E[] = []
  private newestSeen = -1
  private maxSent = -1
  /** The oldest id of the first step's history: older entries were never meant to be delivered. */
  private floor = 0
  private sent = new Set<number>()

  /** Whether a first step has run (a joining tab gets `recent` then). */
  get started(): boolean {
    return this.newestSeen >= 0
  }

  /**
   * One step: reads pages through `read` (null from it ends the step with null: the feed must
   * stop). The first step reads only the latest FEED_RECENT. Returns null when nothing is to be
   * sent (not the first step, nothing new).
   */
  async next(
    read: (skip: number, limit: number) => Promise<FeedPage<E> | null>,
  ): Promise<FeedStep<E> | null | 'stop'> {
    const first = !this.started
    const limit = first ? FEED_RECENT : FEED_PAGE
    const fresh: E[] = []
    const seen: number[] = []
    let met = false
    let reachedEnd = false
    let newest = 0
    for (let skip = 0, pages = 0; pages < MAX_PAGES; pages++) {
      const page = await read(skip, limit)
      if (page === null) return 'stop'
      if (pages === 0) {
        newest = page.entries[0]?.id ?? 0
        // A restarted runtime starts its ids again: a list whose newest id went down is a new journal.
        if (!first && page.entries.length > 0 && newest < this.newestSeen) {
          const done = page.entries.filter(complete)
          this.recent = done.slice(0, FEED_RECENT)
          this.sent = new Set(done.map((e) => e.id))
          this.newestSeen = newest
          this.maxSent = done.reduce((max, e) => Math.max(max, e.id), -1)
          this.floor = page.entries.reduce((min, e) => Math.min(min, e.id), newest)
          return { kind: 'reset', entries: this.recent, dropped: 0 }
        }
      }
      for (const e of page.entries) {
        seen.push(e.id)
        if (this.sent.has(e.id)) met = true
        else if (complete(e) && (first || e.id >= this.floor)) fresh.push(e)
      }
      skip += page.entries.length
      if (page.entries.length < limit || skip >= page.total) {
        reachedEnd = true
        break
      }
      // Back to an entry already delivered: nothing older is new.
      if (met || first) break
    }
    // The last delivered entry is gone from the ring: what came between it and the oldest read was evicted.
    const oldest = fresh.reduce((min, e) => Math.min(min, e.id), Number.POSITIVE_INFINITY)
    const dropped =
      !first && !met && reachedEnd && this.maxSent >= 0 && Number.isFinite(oldest)
        ? Math.max(0, oldest - this.maxSent - 1)
        : 0
    for (const e of fresh) {
      this.sent.add(e.id)
      if (e.id > this.maxSent) this.maxSent = e.id
    }
    if (first) this.floor = seen.reduce((min, id) => Math.min(min, id), newest)
    if (this.sent.size > SENT_LIMIT) this.sent = new Set(seen)
    this.newestSeen = Math.max(this.newestSeen, newest, 0)
    if (fresh.length === 0 && !first && dropped === 0) return null
    fresh.sort((a, b) => b.id - a.id)
    this.recent = [...fresh.slice(0, FEED_RECENT), ...this.recent]
      .sort((a, b) => b.id - a.id)
      .slice(0, FEED_RECENT)
    return { kind: 'entries', entries: fresh, dropped }
  }
}

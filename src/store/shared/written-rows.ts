/**
 * The rows one write changed, per scope (workspace), and how much it added to each scope's change
 * count: what both stores' list moves (sqlite/list-changes.ts, postgres/list-changes.ts) read at
 * the write's commit to move the kept positions of its lists instead of reading them again. A
 * write of more than MAX_WRITTEN_ROWS rows is marked `tooMany`: its lists are read again.
 *
 * @example
 * const written = new WrittenRows()
 * written.note(workspaceId, [id], 2) // an UPDATE: counted on the old and the new service
 * written.rows.get(workspaceId) // Set { id }
 */
export class WrittenRows {
  readonly rows = new Map<number, Set<number>>()
  readonly changes = new Map<number, number>()
  /** Distinct rows noted, over every scope. */
  count = 0
  tooMany = false

  /** Notes rows `ids` of `scope`, adding `changes` to the scope's change count. */
  note(scope: number, ids: readonly number[], changes: number): void {
    if (this.tooMany) return
    if (this.count + ids.length > MAX_WRITTEN_ROWS) {
      this.tooMany = true
      return
    }
    let rows = this.rows.get(scope)
    if (rows === undefined) {
      rows = new Set()
      this.rows.set(scope, rows)
    }
    for (const id of ids) {
      if (!rows.has(id)) this.count++
      rows.add(id)
    }
    this.changes.set(scope, (this.changes.get(scope) ?? 0) + changes)
  }
}

/** Rows of one write moved into kept lists; a larger write has them read again. */
export const MAX_WRITTEN_ROWS = 256

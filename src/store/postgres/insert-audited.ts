import type { Audit } from '../types.js'
import { newAudited, type TableCodec } from '../tables/columns.js'
import type { PgRepoContext } from './context.js'
import { one, returned, type Row } from './sql.js'

/**
 * Inserts a new audited record: created/updated now, createdBy/updatedBy the acting user. Returns
 * it as stored, with its id (read by `decode`, the codec's unless the table needs more).
 *
 * @example
 * const asset = await insertAudited(ctx, assets, { ...fields, by: 'ada@example.com' })
 */
export async function insertAudited<T extends Audit & { id: number }>(
  ctx: PgRepoContext,
  codec: TableCodec<T>,
  input: Omit<T, 'id' | keyof Audit> & { by: string },
  decode: (row: Row) => T = codec.decode,
): Promise<T> {
  const record = newAudited(input, ctx.now())
  return decode(returned(await one(ctx.db, codec.insertSql, codec.encode(record))))
}

import {
  rereadDocument,
  rereadDocumentSliced,
  sourceTextOf,
  type MockServiceDocument,
  type SourceText,
} from '../dsl/index.js'
import { timeSlicer } from '../net/index.js'

/** How a served configuration's document is read: now, or in time slices while serving. */
export interface StoredDocument {
  now: () => MockServiceDocument
  later: () => Promise<MockServiceDocument>
}

/**
 * The document of a served configuration, as `GET /config`, the WireMock admin API and a swap's
 * layer read it. A document read from a text (`run --mock FILE`, `PUT /config`) or given its own
 * text (`serve`'s merged files: keepAsOwnText) is not kept on the heap while serving (about 0.8 KB
 * per transaction, and every garbage collection walks it): only its text is, and it is read again
 * when asked (`later` in time slices, so that requests keep being answered), then kept while
 * someone still holds it. Any other document (built in code) is kept as it is.
 *
 * @example
 * const stored = storedDocument(doc)
 * (await stored.later()).transactions.length
 */
export function storedDocument(doc: MockServiceDocument): StoredDocument {
  const source = sourceTextOf(doc)
  if (source === undefined) return { now: () => doc, later: async () => doc }
  return rereadOnDemand(source, new WeakRef(doc))
}

function rereadOnDemand(source: SourceText, first: WeakRef<MockServiceDocument>): StoredDocument {
  let last = first
  return {
    now: () => {
      let doc = last.deref()
      if (doc === undefined) {
        doc = rereadDocument(source)
        last = new WeakRef(doc)
      }
      return doc
    },
    later: async () => {
      const held = last.deref()
      if (held !== undefined) return held
      const doc = await rereadDocumentSliced(source, timeSlicer())
      last = new WeakRef(doc)
      return doc
    },
  }
}

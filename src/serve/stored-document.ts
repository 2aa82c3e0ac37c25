import {
  rereadDocument,
  sourceTextOf,
  type MockServiceDocument,
  type SourceText,
} from '../dsl/index.js'

/**
 * The document of a served configuration, as `GET /config`, the WireMock admin API and a swap's
 * layer read it. A document read from a text (`run --mock FILE`, `PUT /config`) is not kept on the
 * heap while serving (about 0.8 KB per transaction, and every garbage collection walks it): only
 * its text is, and it is read again when asked, then kept while someone still holds it. Any other
 * document (merged from several files, built in code) is kept as it is.
 *
 * @example
 * const documentOf = storedDocument(doc)
 * documentOf().transactions.length
 */
export function storedDocument(doc: MockServiceDocument): () => MockServiceDocument {
  const source = sourceTextOf(doc)
  if (source === undefined) return () => doc
  return rereadOnDemand(source, new WeakRef(doc))
}

function rereadOnDemand(
  source: SourceText,
  first: WeakRef<MockServiceDocument>,
): () => MockServiceDocument {
  let last = first
  return () => {
    let doc = last.deref()
    if (doc === undefined) {
      doc = rereadDocument(source)
      last = new WeakRef(doc)
    }
    return doc
  }
}

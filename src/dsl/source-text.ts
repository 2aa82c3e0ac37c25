import { parseJsonSliced, parseText } from './parse.js'
import { readDefinition, readDefinitionSliced } from './validate.js'
import type { MockServiceDocument } from './types.js'

/** The text a normalized document was read from: enough to read the same document again. */
export interface SourceText {
  readonly bytes: Buffer
  /** The name it was parsed under (its extension decides JSON or YAML, as the first time). */
  readonly fileName: string
}

// Kept beside the documents, never on them: the text must not leak into output.
const sources = new WeakMap<MockServiceDocument, SourceText>()

/**
 * Remembers that `doc` is exactly what `readDefinition(parseText(text, fileName))` gives, so that a
 * runtime may drop the document and read it again when asked (rereadDocument). Only a document
 * returned unchanged by readDefinition may be recorded.
 */
export function recordSourceText(doc: MockServiceDocument, source: SourceText): void {
  sources.set(doc, source)
}

/**
 * Records `doc`'s own JSON text as its source, for a document assembled in code (several files
 * merged, an importer's output): a runtime may then drop it like a document read from a file. Its
 * text reads back through readDefinition into an equal document, because it is one already
 * normalized (readDefinition gives normalized documents back unchanged).
 *
 * @example
 * keepAsOwnText(loaded.document)
 * sourceTextOf(loaded.document)?.fileName // 'document.json'
 */
export function keepAsOwnText(doc: MockServiceDocument): void {
  recordSourceText(doc, { bytes: Buffer.from(JSON.stringify(doc)), fileName: 'document.json' })
}

/** The source text recorded for `doc`, if any. */
export function sourceTextOf(doc: MockServiceDocument): SourceText | undefined {
  return sources.get(doc)
}

/**
 * The document read again from its source text: equal to the one first read (positions for error
 * messages aside). Costs what the first read cost (about 1 s of CPU for 100,000 transactions).
 *
 * @example
 * rereadDocument({ bytes: Buffer.from('[{"dsl": {"requestDsl": {"path": "/a"}}}]'), fileName: 'a.json' }).transactions.length // 1
 */
export function rereadDocument(source: SourceText): MockServiceDocument {
  const parsed = parseText(source.bytes.toString('utf8'), source.fileName)
  const doc = readDefinition(parsed.value)
  recordSourceText(doc, source)
  return doc
}

/**
 * rereadDocument in time slices (`pause`, a time slicer), for a runtime that keeps serving
 * meanwhile: a JSON text is parsed a transaction at a time and validated in steps, as `PUT
 * /config` reads it the first time. A YAML text is parsed in one piece.
 *
 * @example
 * const doc = await rereadDocumentSliced(source, timeSlicer())
 */
export async function rereadDocumentSliced(
  source: SourceText,
  pause: () => Promise<void>,
): Promise<MockServiceDocument> {
  const parsed = /\.json$/i.test(source.fileName)
    ? await parseJsonSliced(source.bytes, source.fileName, pause)
    : parseText(source.bytes.toString('utf8'), source.fileName)
  const doc = await readDefinitionSliced(parsed.value, {}, pause)
  recordSourceText(doc, source)
  return doc
}

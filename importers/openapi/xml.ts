import { isObject, type RefResolver } from './resolver.js'
import { CYCLE, viewSchema, type Schema } from './schema-view.js'

/**
 * Serializes an example value as XML, guided by its schema's `xml` objects (OpenAPI's XML
 * Object): `name` renames an element, `attribute` makes a property an attribute, `wrapped`
 * puts an array inside an element of its own, `namespace`/`prefix` add an `xmlns`. Without a
 * name, the root element is named after the schema's component (`#/components/schemas/Pet` ->
 * `Pet`), else `root`; properties are named after their keys. Element names are made valid XML
 * names (invalid characters become `_`).
 *
 * @example
 * toXml({ id: 1, tags: ['a'] }, { $ref: '#/components/schemas/Pet' }, resolver)
 * // '<?xml version="1.0" encoding="UTF-8"?>\n<Pet><id>1</id><tags>a</tags></Pet>'
 */
export function toXml(value: unknown, schema: unknown, resolver: RefResolver): string {
  const view = viewOf(schema, resolver)
  const xml = isObject(view?.schema['xml']) ? view.schema['xml'] : {}
  const fallback = view?.refs[0]?.split('/').pop() ?? 'root'
  const name = typeof xml['name'] === 'string' ? xml['name'] : fallback
  let namespace = ''
  if (typeof xml['namespace'] === 'string') {
    const prefix = typeof xml['prefix'] === 'string' ? `:${xml['prefix']}` : ''
    namespace = ` xmlns${prefix}="${escapeXml(xml['namespace'])}"`
  }
  const root = elementName(name)
  if (Array.isArray(value)) {
    // A document has one root: a top-level array is wrapped in an element named after the schema.
    const itemView = viewOf(view?.schema['items'], resolver)
    const itemXml = isObject(itemView?.schema['xml']) ? itemView.schema['xml'] : {}
    const itemName = elementName(
      typeof itemXml['name'] === 'string'
        ? itemXml['name']
        : (itemView?.refs[0]?.split('/').pop() ?? 'item'),
    )
    const items = value.map((v) => element(v, itemView?.schema, itemName, resolver, '', 1)).join('')
    return `${XML_DECLARATION}<${root}${namespace}>${items}</${root}>`
  }
  return `${XML_DECLARATION}${element(value, view?.schema, root, resolver, namespace, 0)}`
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

interface View {
  schema: Schema
  refs: string[]
}

function viewOf(node: unknown, resolver: RefResolver): View | undefined {
  const view = viewSchema(node, resolver, new Set())
  return view === CYCLE || view === undefined ? undefined : view
}

// Example values are finite trees; this only guards against a hand-written example nested absurdly deep.
const MAX_XML_DEPTH = 64

function element(
  value: unknown,
  schema: Schema | undefined,
  name: string,
  resolver: RefResolver,
  extra: string,
  depth: number,
): string {
  if (value === null || value === undefined || depth > MAX_XML_DEPTH) return `<${name}${extra}/>`
  if (Array.isArray(value)) {
    const itemView = viewOf(schema?.['items'], resolver)
    const itemXml = isObject(itemView?.schema['xml']) ? itemView.schema['xml'] : {}
    const itemName = typeof itemXml['name'] === 'string' ? elementName(itemXml['name']) : name
    const items = value
      .map((v) => element(v, itemView?.schema, itemName, resolver, '', depth + 1))
      .join('')
    return items
  }
  if (typeof value !== 'object') return `<${name}${extra}>${escapeXml(String(value))}</${name}>`
  const properties = isObject(schema?.['properties']) ? schema['properties'] : {}
  let attributes = extra
  let children = ''
  for (const [key, child] of Object.entries(value)) {
    const view = viewOf(properties[key], resolver)
    const xml = isObject(view?.schema['xml']) ? view.schema['xml'] : {}
    const childName = elementName(typeof xml['name'] === 'string' ? xml['name'] : key)
    if (xml['attribute'] === true && (typeof child !== 'object' || child === null)) {
      attributes += ` ${childName}="${escapeXml(String(child ?? ''))}"`
    } else if (Array.isArray(child) && xml['wrapped'] === true) {
      children += `<${childName}>${element(child, view?.schema, childName, resolver, '', depth + 1)}</${childName}>`
    } else {
      children += element(child, view?.schema, childName, resolver, '', depth + 1)
    }
  }
  return `<${name}${attributes}>${children}</${name}>`
}

/** A valid XML element name: invalid characters become `_`, and a name cannot start with a digit, `-` or `.`. */
function elementName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.:-]/g, '_')
  return /^[A-Za-z_:]/.test(cleaned) ? cleaned : `_${cleaned}`
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  )
}

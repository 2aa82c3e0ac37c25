export * from './transaction.js'
export { publishedSchema, publishedSchemaPath } from './published.js'

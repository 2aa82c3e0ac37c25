export * from './transaction.js'

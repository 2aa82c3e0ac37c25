export { createUiFront } from './front.js'

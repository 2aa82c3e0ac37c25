export { createUiFront, type UiFront, type UiFrontOptions } from './front.js'

export { KubernetesDriver } from './driver.js'
export { connectCluster, FIELD_MANAGER } from './cluster.js'
export { documentHash } from './document-hash.js'
export { kubernetesRuntimeAdmin } from './runtime-admin.js'
export type { FannedInAnswer, MockServiceAdmin, PodSet } from './fan-in-admin.js'
export {
  renderMockService,
  selectorOf,
  HASH_ANNOTATION,
  MAX_DOCUMENT_BYTES,
  type RenderedObject,
} from './render.js'
export type { KubernetesDriverOptions, KubernetesPlacement, RuntimeDriver } from './types.js'

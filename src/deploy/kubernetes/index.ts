export { KubernetesDriver } from './driver.js'
export { connectCluster, FIELD_MANAGER, type ClusterApi, type ClusterSource } from './cluster.js'
export { documentHash } from './document-hash.js'
export {
  renderMockService,
  objectNames,
  selectorOf,
  HASH_ANNOTATION,
  MAX_DOCUMENT_BYTES,
  type RenderedObject,
} from './render.js'
export type {
  KubernetesDriverOptions,
  KubernetesMockService,
  KubernetesPlacement,
  PodView,
  RuntimeDriver,
} from './types.js'

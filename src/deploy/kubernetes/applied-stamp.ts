import type { KubernetesObject } from '@kubernetes/client-node'
import { documentHash } from './document-hash.js'
import type { RenderedObject } from './render.js'

/**
 * The annotation each applied object carries: the hash of the object as the driver rendered it.
 * An agent restarted, or a deploy of an unchanged mock service, finds it on the cluster's object
 * and applies nothing, so that nothing is touched (or restarted) that did not change.
 */
export const APPLIED_ANNOTATION = 'understudy.dev/applied-sha256'

/** The object with its own hash in APPLIED_ANNOTATION (on the object, never on a pod template). */
export function stamped(object: RenderedObject): RenderedObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata.annotations, [APPLIED_ANNOTATION]: documentHash(object) },
    },
  }
}

interface Scalable extends KubernetesObject {
  spec?: { replicas?: number }
}

/**
 * Whether the cluster's object already is what `wanted` (stamped) says: the same stamp and, for a
 * Deployment, the same replicas (a stop scales it to 0 as another field manager, leaving the stamp).
 */
export function upToDate(live: KubernetesObject | null, wanted: RenderedObject): boolean {
  const stamp = wanted.metadata.annotations?.[APPLIED_ANNOTATION]
  if (live === null || stamp === undefined) return false
  if (live.metadata?.annotations?.[APPLIED_ANNOTATION] !== stamp) return false
  if (wanted.kind !== 'Deployment') return true
  return (live as Scalable).spec?.replicas === (wanted as Scalable).spec?.replicas
}

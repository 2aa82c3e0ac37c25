import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import {
  APPLIED_ANNOTATION,
  stamped,
  upToDate,
} from '../../../src/deploy/kubernetes/applied-stamp.js'
import { renderMockService, type RenderedObject } from '../../../src/deploy/kubernetes/index.js'

/*
 * The stamp that lets the driver skip the apply of an object the cluster already has as rendered:
 * skipped only when nothing the agent applies would change.
 */

const document = readDefinition({
  name: 'pets',
  transactions: [
    { name: 'list', dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: {} } },
  ],
})
const options = { namespace: 'mocks', image: 'ghcr.io/acme/understudy:1.2.3' }

function deploymentOf(replicas: number, image = options.image): RenderedObject {
  const found = renderMockService(
    { mockServiceId: 7, name: 'pets', replicas, document },
    { ...options, image },
    'token',
  ).find((o) => o.kind === 'Deployment')
  if (found === undefined) throw new Error('no Deployment rendered')
  return found
}

describe('the applied stamp of Kubernetes objects', () => {
  it('is on the object, not on its pod template, and the same for the same rendering', () => {
    const wanted = stamped(deploymentOf(2))
    expect(wanted.metadata.annotations?.[APPLIED_ANNOTATION]).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(wanted['spec'])).not.toContain(APPLIED_ANNOTATION)
    expect(stamped(deploymentOf(2))).toEqual(wanted)
    expect(upToDate(wanted, stamped(deploymentOf(2)))).toBe(true)
  })

  it('says an object must be applied when missing, unstamped, rendered otherwise, or scaled elsewhere', () => {
    const wanted = stamped(deploymentOf(2))
    expect(upToDate(null, wanted)).toBe(false)
    expect(upToDate(deploymentOf(2), wanted)).toBe(false)
    expect(upToDate(stamped(deploymentOf(2, 'ghcr.io/acme/understudy:1.2.4')), wanted)).toBe(false)
    expect(upToDate(stamped(deploymentOf(3)), wanted)).toBe(false)
    // A stop scales the Deployment to 0 as another field manager: the stamp stays, replicas differ.
    const stopped = { ...wanted, spec: { ...(wanted['spec'] as object), replicas: 0 } }
    expect(upToDate(stopped, wanted)).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import { kubernetesSchemaErrors, unknownFields } from '../../helpers/kubernetes-schema.js'
import {
  documentHash,
  HASH_ANNOTATION,
  MAX_DOCUMENT_BYTES,
  renderMockService,
  selectorOf,
  type KubernetesDriverOptions,
  type RenderedObject,
} from '../../../src/deploy/kubernetes/index.js'

/*
 * Layer (a) of the Kubernetes driver's tests: the objects it applies, validated against the
 * Kubernetes schemas without a cluster (test/helpers/kubernetes-schema.ts: types, formats,
 * required fields, and no field the API does not know).
 */

const document = readDefinition({
  name: 'pets',
  transactions: [
    {
      name: 'list',
      dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [{ id: 1 }] } },
    },
  ],
})
const options: KubernetesDriverOptions = {
  namespace: 'mocks',
  image: 'ghcr.io/acme/understudy:1.2.3',
  serviceType: 'LoadBalancer',
  ingressDomain: 'mocks.example.test',
  ingressClassName: 'nginx',
}
const mock = { mockServiceId: 42, name: 'Pets API (staging)', replicas: 3, document }

function byKind(objects: RenderedObject[], kind: string, name?: string): RenderedObject {
  const found = objects.find(
    (o) => o.kind === kind && (name === undefined || o.metadata.name === name),
  )
  if (found === undefined) throw new Error(`no ${kind} ${name ?? ''}`)
  return found
}

const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>(
    (v, key) => (v as Record<string | number, unknown> | undefined)?.[key],
    value,
  )

describe('the Kubernetes objects of a mock service', () => {
  const objects = renderMockService(mock, options, 'admin-token')

  it('are a ConfigMap, a Secret, a Deployment, two Services and an Ingress, valid against the Kubernetes schemas, with no field the API does not know', () => {
    expect(objects.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`)).toEqual([
      'v1 ConfigMap understudy-ms-42',
      'v1 Secret understudy-ms-42-admin',
      'apps/v1 Deployment understudy-ms-42',
      'v1 Service understudy-ms-42',
      'v1 Service understudy-ms-42-admin',
      'networking.k8s.io/v1 Ingress understudy-ms-42',
    ])
    for (const object of objects) {
      expect(kubernetesSchemaErrors(object), `${object.kind} ${object.metadata.name}`).toEqual([])
      expect(object.metadata.namespace).toBe('mocks')
      expect(object.metadata.name).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)
    }
  })

  it('the schema check does find unknown fields and wrong types (it can fail)', () => {
    const bad = structuredClone(byKind(objects, 'Deployment'))
    ;(at(bad, 'spec', 'template', 'spec', 'containers', 0) as Record<string, unknown>)['bogus'] =
      true
    expect(unknownFields(bad, 'V1Deployment')).toEqual(['/spec/template/spec/containers/0/bogus'])
    const wrongType = structuredClone(byKind(objects, 'Deployment'))
    ;(at(wrongType, 'spec') as Record<string, unknown>)['replicas'] = 'three'
    expect(kubernetesSchemaErrors(wrongType).join('\n')).toMatch(/replicas/)
  })

  it("run the image's `understudy run` on the mounted document, with the admin token from the Secret and probes on /health", () => {
    const deployment = byKind(objects, 'Deployment')
    expect(at(deployment, 'spec', 'replicas')).toBe(3)
    expect(at(deployment, 'spec', 'selector', 'matchLabels')).toEqual(selectorOf(42))
    const template = at(deployment, 'spec', 'template') as Record<string, unknown>
    for (const [k, v] of Object.entries(selectorOf(42))) {
      expect(at(template, 'metadata', 'labels', k)).toBe(v)
    }
    const container = at(template, 'spec', 'containers', 0) as Record<string, unknown>
    expect(container['image']).toBe('ghcr.io/acme/understudy:1.2.3')
    expect(container['args']).toEqual([
      '--mock',
      '/config/mock.json',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--admin-port',
      '9090',
    ])
    expect(at(container, 'env', 0)).toEqual({
      name: 'UNDERSTUDY_ADMIN_TOKEN',
      valueFrom: { secretKeyRef: { name: 'understudy-ms-42-admin', key: 'token' } },
    })
    expect(at(container, 'readinessProbe', 'httpGet')).toEqual({ path: '/health', port: 'admin' })
    expect(at(container, 'livenessProbe', 'httpGet')).toEqual({ path: '/health', port: 'admin' })
    expect((container['ports'] as Array<{ name: string }>).map((p) => p.name)).toEqual([
      'http',
      'admin',
    ])
    expect(at(container, 'volumeMounts', 0)).toEqual({
      name: 'config',
      mountPath: '/config',
      readOnly: true,
    })
    expect(at(template, 'spec', 'volumes', 0, 'configMap', 'name')).toBe('understudy-ms-42')
    expect(at(container, 'securityContext', 'readOnlyRootFilesystem')).toBe(true)
    expect(at(template, 'spec', 'securityContext', 'runAsNonRoot')).toBe(true)
    // The Secret holds the token the pods read.
    expect(
      Buffer.from(at(byKind(objects, 'Secret'), 'data', 'token') as string, 'base64').toString(),
    ).toBe('admin-token')
  })

  it('keep the document and its hash in the ConfigMap, and nothing of the document in the pod template (a new document restarts no pod)', () => {
    const configMap = byKind(objects, 'ConfigMap')
    expect(JSON.parse(at(configMap, 'data', 'mock.json') as string)).toEqual(document)
    expect(configMap.metadata.annotations?.[HASH_ANNOTATION]).toBe(documentHash(document))
    const other = readDefinition({
      name: 'pets',
      transactions: [
        { name: 'gone', dsl: { requestDsl: { path: '/gone' }, responseDsl: { status: 410 } } },
      ],
    })
    const changed = renderMockService({ ...mock, document: other }, options, 'admin-token')
    expect(byKind(changed, 'Deployment')).toEqual(byKind(objects, 'Deployment'))
    expect(byKind(changed, 'ConfigMap').metadata.annotations?.[HASH_ANNOTATION]).not.toBe(
      documentHash(document),
    )
  })

  it('expose the mock on the Service and Ingress, and the admin API only on a headless Service', () => {
    const service = byKind(objects, 'Service', 'understudy-ms-42')
    expect(at(service, 'spec', 'type')).toBe('LoadBalancer')
    expect(at(service, 'spec', 'ports')).toEqual([
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' },
    ])
    const admin = byKind(objects, 'Service', 'understudy-ms-42-admin')
    expect(at(admin, 'spec', 'clusterIP')).toBe('None')
    expect(at(admin, 'spec', 'ports', 0, 'targetPort')).toBe('admin')
    expect(at(byKind(objects, 'Ingress'), 'spec', 'rules', 0, 'host')).toBe(
      'ms-42.mocks.example.test',
    )
    expect(
      renderMockService(mock, { namespace: 'mocks', image: 'u:1' }, 't').map((o) => o.kind),
    ).not.toContain('Ingress')
  })

  it('refuses a document larger than a ConfigMap holds, in words', () => {
    const big = { ...document, description: 'x'.repeat(MAX_DOCUMENT_BYTES) }
    expect(() => renderMockService({ ...mock, document: big }, options, 't')).toThrow(
      /ConfigMap holds at most/,
    )
  })
})

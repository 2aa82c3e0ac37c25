import * as k8s from '@kubernetes/client-node'
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1'
import { Deployment } from 'kubernetes-models/apps/v1'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1'
import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../../src/dsl/index.js'
import { documentHash, HASH_ANNOTATION, MAX_DOCUMENT_BYTES, renderMockService, selectorOf, type KubernetesDriverOptions, type RenderedObject } from '../../../src/deploy/kubernetes/index.js'

/*
 * Layer (a) of the Kubernetes driver's tests: the objects it applies, validated against the
 * Kubernetes schemas without a cluster. kubernetes-models checks types, formats and required
 * fields but lets unknown fields through, which the API server would drop (or, with strict field
 * validation, refuse); so every field is also checked to be one the API knows, by the models of
 * @kubernetes/client-node (their attribute maps are generated from the same OpenAPI).
 */

const document = readDefinition({ name: 'pets', transactions: [{ name: 'list', dsl: { requestDsl: { method: 'GET', path: '/pets' }, responseDsl: { json: [{ id: 1 }] } } }] })
const options: KubernetesDriverOptions = { namespace: 'mocks', image: 'ghcr.io/acme/understudy:1.2.3', serviceType: 'LoadBalancer', ingressDomain: 'mocks.example.test', ingressClassName: 'nginx' }
const mock = { mockServiceId: 42, name: 'Pets API (staging)', replicas: 3, document }

const models: Record<string, new (data: never) => { validate: () => void }> = { ConfigMap, Secret, Deployment, Service, Ingress }

type AttributeMap = Array<{ baseName: string; type: string }>
const knownTypes = k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeMap } | undefined>

/** JSON pointers of the fields of `value` that the Kubernetes type `type` does not have. */
function unknownFields (value: unknown, type: string, at = ''): string[] {
  const item = /^Array<(.+)>$/.exec(type)?.[1]
  if (item !== undefined) return Array.isArray(value) ? value.flatMap((v, i) => unknownFields(v, item, `${at}/${i}`)) : [`${at} (not an array)`]
  const attributes = knownTypes[type]?.getAttributeTypeMap?.()
  if (attributes === undefined || value === null || typeof value !== 'object') return []
  const out: string[] = []
  for (const [key, v] of Object.entries(value)) {
    const attribute = attributes.find((a) => a.baseName === key)
    if (attribute === undefined) out.push(`${at}/${key}`)
    else out.push(...unknownFields(v, attribute.type, `${at}/${key}`))
  }
  return out
}

function byKind (objects: RenderedObject[], kind: string, name?: string): RenderedObject {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name))
  if (found === undefined) throw new Error(`no ${kind} ${name ?? ''}`)
  return found
}

const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((v, key) => (v as Record<string | number, unknown> | undefined)?.[key], value)

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
      const Model = models[object.kind]
      expect(Model, object.kind).toBeDefined()
      expect(() => new (Model as new (data: unknown) => { validate: () => void })(object).validate(), `${object.kind} ${object.metadata.name}`).not.toThrow()
      expect(unknownFields(object, `V1${object.kind}`), `${object.kind} ${object.metadata.name}`).toEqual([])
      expect(object.metadata.namespace).toBe('mocks')
      expect(object.metadata.name).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)
    }
  })

  it('the walker does find fields Kubernetes does not have (it can fail)', () => {
    const bad = structuredClone(byKind(objects, 'Deployment'))
    ;(at(bad, 'spec', 'template', 'spec', 'containers', 0) as Record<string, unknown>)['bogus'] = true
    expect(unknownFields(bad, 'V1Deployment')).toEqual(['/spec/template/spec/containers/0/bogus'])
    const wrongType = structuredClone(byKind(objects, 'Deployment'))
    ;(at(wrongType, 'spec') as Record<string, unknown>)['replicas'] = 'three'
    expect(() => new Deployment(wrongType as never).validate()).toThrow(/replicas/)
  })

  it('run the image\'s `understudy run` on the mounted document, with the admin token from the Secret and probes on /health', () => {
    const deployment = byKind(objects, 'Deployment')
    expect(at(deployment, 'spec', 'replicas')).toBe(3)
    expect(at(deployment, 'spec', 'selector', 'matchLabels')).toEqual(selectorOf(42))
    const template = at(deployment, 'spec', 'template') as Record<string, unknown>
    for (const [k, v] of Object.entries(selectorOf(42))) expect(at(template, 'metadata', 'labels', k)).toBe(v)
    const container = at(template, 'spec', 'containers', 0) as Record<string, unknown>
    expect(container['image']).toBe('ghcr.io/acme/understudy:1.2.3')
    expect(container['args']).toEqual(['--mock', '/config/mock.json', '--host', '0.0.0.0', '--port', '8080', '--admin-port', '9090'])
    expect(at(container, 'env', 0)).toEqual({ name: 'UNDERSTUDY_ADMIN_TOKEN', valueFrom: { secretKeyRef: { name: 'understudy-ms-42-admin', key: 'token' } } })
    expect(at(container, 'readinessProbe', 'httpGet')).toEqual({ path: '/health', port: 'admin' })
    expect(at(container, 'livenessProbe', 'httpGet')).toEqual({ path: '/health', port: 'admin' })
    expect((container['ports'] as Array<{ name: string }>).map((p) => p.name)).toEqual(['http', 'admin'])
    expect(at(container, 'volumeMounts', 0)).toEqual({ name: 'config', mountPath: '/config', readOnly: true })
    expect(at(template, 'spec', 'volumes', 0, 'configMap', 'name')).toBe('understudy-ms-42')
    expect(at(container, 'securityContext', 'readOnlyRootFilesystem')).toBe(true)
    expect(at(template, 'spec', 'securityContext', 'runAsNonRoot')).toBe(true)
    // The Secret holds the token the pods read.
    expect(Buffer.from(at(byKind(objects, 'Secret'), 'data', 'token') as string, 'base64').toString()).toBe('admin-token')
  })

  it('keep the document and its hash in the ConfigMap, and nothing of the document in the pod template (a new document restarts no pod)', () => {
    const configMap = byKind(objects, 'ConfigMap')
    expect(JSON.parse(at(configMap, 'data', 'mock.json') as string)).toEqual(document)
    expect(configMap.metadata.annotations?.[HASH_ANNOTATION]).toBe(documentHash(document))
    const other = readDefinition({ name: 'pets', transactions: [{ name: 'gone', dsl: { requestDsl: { path: '/gone' }, responseDsl: { status: 410 } } }] })
    const changed = renderMockService({ ...mock, document: other }, options, 'admin-token')
    expect(byKind(changed, 'Deployment')).toEqual(byKind(objects, 'Deployment'))
    expect(byKind(changed, 'ConfigMap').metadata.annotations?.[HASH_ANNOTATION]).not.toBe(documentHash(document))
  })

  it('expose the mock on the Service and Ingress, and the admin API only on a headless Service', () => {
    const service = byKind(objects, 'Service', 'understudy-ms-42')
    expect(at(service, 'spec', 'type')).toBe('LoadBalancer')
    expect(at(service, 'spec', 'ports')).toEqual([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }])
    const admin = byKind(objects, 'Service', 'understudy-ms-42-admin')
    expect(at(admin, 'spec', 'clusterIP')).toBe('None')
    expect(at(admin, 'spec', 'ports', 0, 'targetPort')).toBe('admin')
    expect(at(byKind(objects, 'Ingress'), 'spec', 'rules', 0, 'host')).toBe('ms-42.mocks.example.test')
    expect(renderMockService(mock, { namespace: 'mocks', image: 'u:1' }, 't').map((o) => o.kind)).not.toContain('Ingress')
  })

  it('refuses a document larger than a ConfigMap holds, in words', () => {
    const big = { ...document, description: 'x'.repeat(MAX_DOCUMENT_BYTES) }
    expect(() => renderMockService({ ...mock, document: big }, options, 't')).toThrow(/ConfigMap holds at most/)
  })
})

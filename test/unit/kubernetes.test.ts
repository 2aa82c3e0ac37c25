import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseAllDocuments } from 'yaml'
import { describe, expect, it } from 'vitest'
import { readDefinition } from '../../src/dsl/index.js'

// No cluster runs here: the manifests are parsed and checked to fit together and to the image's
// contract (the Dockerfile's entrypoint, ports and admin health), as `kubectl apply --dry-run`
// would find the gross mistakes.
const dir = resolve(import.meta.dirname, '../../examples/kubernetes')

type Obj = Record<string, unknown>
function load(name: string): Obj {
  const docs = parseAllDocuments(readFileSync(resolve(dir, name), 'utf8'))
  expect(docs).toHaveLength(1)
  expect(docs[0]?.errors).toEqual([])
  return docs[0]?.toJS() as Obj
}
const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>(
    (v, key) => (v as Record<string | number, unknown> | undefined)?.[key],
    value,
  )

describe('examples/kubernetes', () => {
  const configMap = load('configmap.yaml')
  const deployment = load('deployment.yaml')
  const service = load('service.yaml')

  it('declares a ConfigMap, a Deployment and a Service of the usual API versions', () => {
    expect([configMap['apiVersion'], configMap['kind']]).toEqual(['v1', 'ConfigMap'])
    expect([deployment['apiVersion'], deployment['kind']]).toEqual(['apps/v1', 'Deployment'])
    expect([service['apiVersion'], service['kind']]).toEqual(['v1', 'Service'])
  })

  it('ships a mock definition the runtime accepts', () => {
    const text = at(configMap, 'data', 'mock.json') as string
    const [doc] = parseAllDocuments(text)
    expect(readDefinition(doc?.toJS()).transactions.length).toBeGreaterThan(0)
  })

  it('runs understudy with the ConfigMap mounted, the admin token from a Secret and probes on the admin health', () => {
    const labels = at(deployment, 'spec', 'selector', 'matchLabels')
    expect(at(deployment, 'spec', 'template', 'metadata', 'labels')).toEqual(labels)
    const container = at(deployment, 'spec', 'template', 'spec', 'containers', 0) as Obj
    const args = container['args'] as string[]
    expect(args.slice(0, 2)).toEqual(['--mock', '/config/mock.json'])
    const adminPort = Number(args[args.indexOf('--admin-port') + 1])
    const httpPort = Number(args[args.indexOf('--port') + 1])
    const ports = container['ports'] as Array<{ name: string; containerPort: number }>
    expect(ports).toEqual(
      expect.arrayContaining([
        { name: 'admin', containerPort: adminPort },
        { name: 'http', containerPort: httpPort },
      ]),
    )
    for (const probe of ['readinessProbe', 'livenessProbe']) {
      expect(at(container, probe, 'httpGet')).toEqual({ path: '/health', port: 'admin' })
    }
    const env = container['env'] as Array<{ name: string; valueFrom?: unknown }>
    expect(env.find((e) => e.name === 'UNDERSTUDY_ADMIN_TOKEN')?.valueFrom).toMatchObject({
      secretKeyRef: { key: 'token' },
    })
    const mount = (
      container['volumeMounts'] as Array<{ name: string; mountPath: string; readOnly: boolean }>
    )[0]
    expect(mount).toMatchObject({ mountPath: '/config', readOnly: true })
    const volume = (
      at(deployment, 'spec', 'template', 'spec', 'volumes') as Array<{
        name: string
        configMap: { name: string }
      }>
    ).find((v) => v.name === mount?.name)
    expect(volume?.configMap.name).toBe(at(configMap, 'metadata', 'name'))
    expect(at(deployment, 'spec', 'template', 'spec', 'securityContext', 'runAsNonRoot')).toBe(true)
  })

  it('selects the pods and targets their named ports', () => {
    expect(at(service, 'spec', 'selector')).toEqual(
      at(deployment, 'spec', 'selector', 'matchLabels'),
    )
    const targets = (at(service, 'spec', 'ports') as Array<{ targetPort: string }>)
      .map((p) => p.targetPort)
      .sort()
    expect(targets).toEqual(['admin', 'http'])
  })
})

import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { cliPath } from './cli.js'

/*
 * A Kubernetes API server for tests, on 127.0.0.1 port 0, implementing only what the Kubernetes
 * driver calls: discovery of v1, apps/v1 and networking.k8s.io/v1, server-side apply (PATCH with
 * `application/apply-patch+yaml`, a field manager, `force`), GET and DELETE of namespaced objects.
 *
 * Behind it a small kubelet and controllers make the objects real on loopback: a Deployment's
 * pods are `understudy run` processes of this build, started from the pod template (its args with
 * the ports made ephemeral and the host loopback, its env with secretKeyRef resolved, its
 * ConfigMap volume written to a folder); a pod is ready when its readiness probe answers 200;
 * Endpoints list every pod of a Service's selector (one subset per pod, since each has its own
 * ports here). A changed pod template replaces the pods; a changed replica count adds or removes
 * pods and keeps the others. A container of an image tagged `crash` exits at once.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind, read loosely by path
type Obj = Record<string, any>

interface FakePod {
  name: string
  child: ChildProcess
  dir: string
  templateKey: string
  deployment: string
  ports: Record<string, number>
  ready: boolean
  stdout: string
  stderr: string
  exited: boolean
}

/** One request the fake answered, for assertions on how the driver talks to the API. */
export interface RecordedCall {
  method: string
  path: string
  contentType: string | undefined
  query: Record<string, string>
}

export interface FakeKubernetes {
  url: string
  calls: RecordedCall[]
  /** The live object, or undefined. */
  object: (kind: string, namespace: string, name: string) => Obj | undefined
  /** The running pods of a Deployment. */
  pods: (namespace: string, deployment: string) => FakePod[]
  /** How many pods were ever started for a Deployment. */
  started: (namespace: string, deployment: string) => number
  close: () => Promise<void>
}

const resources: Record<string, { group: string; kinds: Record<string, string> }> = {
  v1: {
    group: '/api/v1',
    kinds: {
      configmaps: 'ConfigMap',
      secrets: 'Secret',
      services: 'Service',
      endpoints: 'Endpoints',
      pods: 'Pod',
    },
  },
  'apps/v1': { group: '/apis/apps/v1', kinds: { deployments: 'Deployment' } },
  'networking.k8s.io/v1': { group: '/apis/networking.k8s.io/v1', kinds: { ingresses: 'Ingress' } },
}

function discovery(groupVersion: string) {
  const entry = resources[groupVersion]
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: Object.entries(entry?.kinds ?? {}).map(([name, kind]) => ({
      name,
      singularName: kind.toLowerCase(),
      namespaced: true,
      kind,
      verbs: ['get', 'list', 'patch', 'delete'],
    })),
  }
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (
    over === null ||
    typeof over !== 'object' ||
    Array.isArray(over) ||
    base === null ||
    typeof base !== 'object' ||
    Array.isArray(base)
  ) {
    return structuredClone(over)
  }
  const out: Obj = { ...(base as Obj) }
  for (const [k, v] of Object.entries(over as Obj)) out[k] = deepMerge(out[k], v)
  return out
}

function status(code: number, reason: string, message: string): Obj {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }
}

/**
 * Starts the fake API server.
 *
 * @example
 * const cluster = await startFakeKubernetes()
 * const api = await connectCluster({ kind: 'server', server: cluster.url, namespace: 'mocks' })
 */
export async function startFakeKubernetes(): Promise<FakeKubernetes> {
  const root = mkdtempSync(join(tmpdir(), 'understudy-fake-k8s-'))
  const calls: RecordedCall[] = []
  /** Live objects by `Kind/namespace/name`, and each field manager's last applied configuration. */
  const objects = new Map<string, Obj>()
  const applied = new Map<string, Map<string, Obj>>()
  const pods = new Map<string, FakePod[]>()
  const startedCount = new Map<string, number>()
  let resourceVersion = 1
  let closed = false

  const keyOf = (kind: string, ns: string, name: string): string => `${kind}/${ns}/${name}`

  function store(kind: string, ns: string, name: string, manager: string, config: Obj): Obj {
    const key = keyOf(kind, ns, name)
    const byManager = applied.get(key) ?? new Map<string, Obj>()
    // The manager's newest configuration replaces its previous one (fields it dropped go), and
    // configurations are merged oldest first, the newest winning (the apply is forced).
    byManager.delete(manager)
    byManager.set(manager, config)
    applied.set(key, byManager)
    let live: Obj = {}
    for (const c of byManager.values()) live = deepMerge(live, c) as Obj
    const previous = objects.get(key)
    live['metadata'] = {
      ...live['metadata'],
      uid: previous?.['metadata']?.uid ?? randomUUID(),
      resourceVersion: String(resourceVersion++),
      creationTimestamp: previous?.['metadata']?.creationTimestamp ?? new Date().toISOString(),
      generation: (previous?.['metadata']?.generation ?? 0) + 1,
    }
    if (previous?.['status'] !== undefined) live['status'] = previous['status']
    objects.set(key, live)
    return live
  }

  function podsOf(ns: string, deployment: string): FakePod[] {
    return pods.get(keyOf('Deployment', ns, deployment)) ?? []
  }

  function matches(labels: Obj | undefined, selector: Obj | undefined): boolean {
    return selector !== undefined && Object.entries(selector).every(([k, v]) => labels?.[k] === v)
  }

  function refreshEndpoints(ns: string): void {
    for (const [key, service] of objects) {
      if (!key.startsWith(`Service/${ns}/`)) continue
      const selector = service['spec']?.selector as Obj | undefined
      const subsets: Obj[] = []
      for (const [dkey, deployment] of objects) {
        if (!dkey.startsWith(`Deployment/${ns}/`)) continue
        if (!matches(deployment['spec']?.template?.metadata?.labels, selector)) continue
        for (const pod of podsOf(ns, deployment['metadata'].name)) {
          if (pod.exited || pod.ports['admin'] === undefined) continue
          const ports = ((service['spec']?.ports as Obj[]) ?? []).map((p) => ({
            name: p['name'],
            port: pod.ports[String(p['targetPort'])] ?? p['targetPort'],
            protocol: 'TCP',
          }))
          const address = {
            ip: '127.0.0.1',
            targetRef: { kind: 'Pod', name: pod.name, namespace: ns },
          }
          subsets.push(
            pod.ready ? { addresses: [address], ports } : { notReadyAddresses: [address], ports },
          )
        }
      }
      const name = service['metadata'].name as string
      objects.set(keyOf('Endpoints', ns, name), {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name, namespace: ns, resourceVersion: String(resourceVersion++) },
        subsets,
      })
    }
  }

  function refreshDeploymentStatus(ns: string, name: string): void {
    const deployment = objects.get(keyOf('Deployment', ns, name))
    if (deployment === undefined) return
    const live = podsOf(ns, name).filter((p) => !p.exited)
    deployment['status'] = {
      observedGeneration: deployment['metadata'].generation,
      replicas: live.length,
      readyReplicas: live.filter((p) => p.ready).length,
      updatedReplicas: live.length,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
    }
    refreshEndpoints(ns)
  }

  /** What the kubelet writes for a ConfigMap volume: one file per key. */
  function writeVolume(dir: string, ns: string, configMapName: string): void {
    const configMap = objects.get(keyOf('ConfigMap', ns, configMapName))
    mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(
      (configMap?.['data'] ?? {}) as Record<string, string>,
    )) {
      writeFileSync(join(dir, file), text)
    }
  }

  function startPod(ns: string, deployment: Obj, templateKey: string): void {
    const dname = deployment['metadata'].name as string
    const spec = deployment['spec'].template.spec as Obj
    const container = spec['containers'][0] as Obj
    const name = `${dname}-${randomUUID().slice(0, 8)}`
    const dir = join(root, name)
    const mounts = new Map<string, string>()
    for (const mount of (container['volumeMounts'] ?? []) as Obj[]) {
      const volume = (spec['volumes'] as Obj[]).find((v) => v['name'] === mount['name'])
      const local = join(dir, String(mount['name']))
      writeVolume(local, ns, volume?.['configMap']?.name as string)
      mounts.set(String(mount['mountPath']), local)
    }
    const args = (container['args'] as string[]).map((arg, i, all) => {
      const flag = all[i - 1]
      if (flag === '--port' || flag === '--admin-port') return '0'
      if (flag === '--host') return '127.0.0.1'
      for (const [mountPath, local] of mounts) {
        if (arg.startsWith(`${mountPath}/`)) return join(local, arg.slice(mountPath.length + 1))
      }
      return arg
    })
    const env: Record<string, string> = {}
    for (const e of (container['env'] ?? []) as Obj[]) {
      const ref = e['valueFrom']?.secretKeyRef as Obj | undefined
      if (ref === undefined) {
        env[e['name']] = String(e['value'] ?? '')
        continue
      }
      const secret = objects.get(keyOf('Secret', ns, String(ref['name'])))
      env[e['name']] = Buffer.from(
        String(secret?.['data']?.[String(ref['key'])] ?? ''),
        'base64',
      ).toString()
    }
    // An image tagged `crash` stands for one whose container exits at once (a bad image, a crash loop).
    const command = String(container['image']).endsWith(':crash')
      ? ['-e', 'process.exit(1)']
      : [cliPath, 'run', ...args]
    const child = spawn(process.execPath, command, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    })
    const pod: FakePod = {
      name,
      child,
      dir,
      templateKey,
      deployment: dname,
      ports: {},
      ready: false,
      stdout: '',
      stderr: '',
      exited: false,
    }
    const portNames = Object.fromEntries(
      ((container['ports'] ?? []) as Obj[]).map((p) => [
        String(p['containerPort']),
        String(p['name']),
      ]),
    )
    child.stdout?.on('data', (c: Buffer) => {
      pod.stdout += c.toString()
      const http = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(pod.stdout)
      const admin = /admin on http:\/\/127\.0\.0\.1:(\d+)/.exec(pod.stdout)
      if (http !== null) pod.ports[portNames[String(8080)] ?? 'http'] = Number(http[1])
      if (admin !== null) pod.ports[portNames[String(9090)] ?? 'admin'] = Number(admin[1])
    })
    child.stderr?.on('data', (c: Buffer) => {
      pod.stderr += c.toString()
    })
    child.once('exit', () => {
      pod.exited = true
      pod.ready = false
      refreshDeploymentStatus(ns, dname)
    })
    const key = keyOf('Deployment', ns, dname)
    pods.set(key, [...(pods.get(key) ?? []), pod])
    startedCount.set(key, (startedCount.get(key) ?? 0) + 1)
  }

  function stopPod(pod: FakePod): void {
    if (!pod.exited) pod.child.kill('SIGTERM')
    pod.exited = true
    pod.ready = false
  }

  /** The Deployment controller and kubelet: pods to match the template and the replica count. */
  function reconcile(ns: string, name: string): void {
    const key = keyOf('Deployment', ns, name)
    const deployment = objects.get(key)
    const live = (pods.get(key) ?? []).filter((p) => !p.exited)
    if (deployment === undefined) {
      live.forEach(stopPod)
      pods.delete(key)
      refreshEndpoints(ns)
      return
    }
    const templateKey = JSON.stringify(deployment['spec'].template)
    const current = live.filter((p) => p.templateKey === templateKey)
    live.filter((p) => p.templateKey !== templateKey).forEach(stopPod)
    const wanted = Number(deployment['spec'].replicas ?? 1)
    current.slice(wanted).forEach(stopPod)
    for (let i = current.length; i < wanted; i++) startPod(ns, deployment, templateKey)
    pods.set(
      key,
      (pods.get(key) ?? []).filter((p) => !p.exited),
    )
    refreshDeploymentStatus(ns, name)
  }

  /** The kubelet's readiness probes, every 100 ms. */
  const prober = setInterval(() => {
    for (const [key, list] of pods) {
      const [, ns, name] = key.split('/') as [string, string, string]
      const deployment = objects.get(key)
      const probe = deployment?.['spec']?.template?.spec?.containers?.[0]?.readinessProbe
        ?.httpGet as Obj | undefined
      for (const pod of list) {
        const port = probe === undefined ? undefined : pod.ports[String(probe['port'])]
        if (pod.exited || port === undefined) continue
        fetch(`http://127.0.0.1:${port}${String(probe?.['path'])}`, {
          signal: AbortSignal.timeout(1000),
        })
          .then(
            (res) => res.ok,
            () => false,
          )
          .then(
            (ok) => {
              if (closed || ok === pod.ready || pod.exited) return
              pod.ready = ok
              refreshDeploymentStatus(ns, name)
            },
            () => {},
          )
      }
    }
  }, 100)

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake')
      calls.push({
        method: req.method ?? '',
        path: url.pathname,
        contentType: req.headers['content-type'],
        query: Object.fromEntries(url.searchParams),
      })
      const send = (code: number, body: unknown): void => {
        res.writeHead(code, { 'content-type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      const group = Object.entries(resources).find(([, r]) => url.pathname === r.group)
      if (req.method === 'GET' && group !== undefined) {
        send(200, discovery(group[0]))
        return
      }
      const match =
        /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(
          url.pathname,
        )
      const entry =
        match === null ? undefined : Object.entries(resources).find(([, r]) => r.group === match[1])
      const kind =
        match === null || entry === undefined ? undefined : entry[1].kinds[match[3] as string]
      if (match === null || entry === undefined || kind === undefined) {
        send(
          404,
          status(
            404,
            'NotFound',
            `the server could not find the requested resource ${url.pathname}`,
          ),
        )
        return
      }
      const [, , ns, , name] = match as unknown as [string, string, string, string, string]
      const key = keyOf(kind, ns, name)
      if (req.method === 'GET') {
        const found = objects.get(key)
        if (found === undefined) {
          send(404, status(404, 'NotFound', `${match[3]} "${name}" not found`))
        } else send(200, found)
        return
      }
      if (req.method === 'DELETE') {
        const found = objects.delete(key)
        applied.delete(key)
        if (kind === 'Deployment') reconcile(ns, name)
        if (kind === 'Service') objects.delete(keyOf('Endpoints', ns, name))
        if (!found) send(404, status(404, 'NotFound', `${match[3]} "${name}" not found`))
        else {
          send(200, {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Success',
            details: { name, kind: match[3] },
          })
        }
        return
      }
      if (req.method === 'PATCH') {
        if (req.headers['content-type'] !== 'application/apply-patch+yaml') {
          send(
            415,
            status(
              415,
              'UnsupportedMediaType',
              `this fake serves server-side apply only, not ${req.headers['content-type'] ?? 'no content type'}`,
            ),
          )
          return
        }
        const manager = url.searchParams.get('fieldManager')
        if (manager === null || manager === '') {
          send(422, status(422, 'Invalid', 'fieldManager is required for apply requests'))
          return
        }
        let body: Obj
        try {
          body = parseYaml(Buffer.concat(chunks).toString('utf8')) as Obj
        } catch (err) {
          send(400, status(400, 'BadRequest', (err as Error).message))
          return
        }
        if (
          body['kind'] !== kind ||
          body['metadata']?.name !== name ||
          (body['metadata']?.namespace ?? ns) !== ns
        ) {
          send(
            400,
            status(
              400,
              'BadRequest',
              `the body (${String(body['kind'])} ${String(body['metadata']?.name)}) does not match the path`,
            ),
          )
          return
        }
        const live = store(kind, ns, name, manager, body)
        if (kind === 'Deployment') reconcile(ns, name)
        if (kind === 'Service') refreshEndpoints(ns)
        if (kind === 'ConfigMap') {
          // The kubelet rewrites mounted ConfigMap files of running pods (eventually; here at once).
          for (const list of pods.values()) {
            for (const pod of list) {
              const d = objects.get(keyOf('Deployment', ns, pod.deployment))
              for (const v of (d?.['spec']?.template?.spec?.volumes ?? []) as Obj[]) {
                if (v['configMap']?.name === name) {
                  writeVolume(join(pod.dir, String(v['name'])), ns, name)
                }
              }
            }
          }
        }
        send(200, objects.get(key) ?? live)
        return
      }
      send(405, status(405, 'MethodNotAllowed', `${req.method ?? ''} is not served by this fake`))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  return {
    url,
    calls,
    object: (kind, ns, name) => objects.get(keyOf(kind, ns, name)),
    pods: (ns, deployment) => podsOf(ns, deployment).filter((p) => !p.exited),
    started: (ns, deployment) => startedCount.get(keyOf('Deployment', ns, deployment)) ?? 0,
    close: async () => {
      closed = true
      clearInterval(prober)
      const children = [...pods.values()].flat().filter((p) => !p.exited)
      await Promise.all(
        children.map(
          async (p) =>
            await new Promise<void>((resolve) => {
              p.child.once('exit', () => resolve())
              p.child.kill('SIGTERM')
              setTimeout(() => {
                p.child.kill('SIGKILL')
              }, 3000).unref()
            }),
        ),
      )
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(root, { recursive: true, force: true })
    },
  }
}

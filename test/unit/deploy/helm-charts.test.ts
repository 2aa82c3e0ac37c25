import { execFileSync, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse as parseYaml, parseAllDocuments, stringify as toYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { renderMockService } from '../../../src/deploy/kubernetes/index.js'
import { allRoutes } from '../../../src/api/index.js'
import { kubernetesSchemaErrors } from '../../helpers/kubernetes-schema.js'

/*
 * The Helm charts of deploy/helm, rendered and validated against the Kubernetes schemas.
 *
 * Helm is not installed on the machines this suite runs on, so the templates are rendered by the
 * stand-in below, which implements only the constructs the charts use (`{{ .Values.x }}`,
 * `.Release.Name`/`.Namespace`, `.Chart.*`, `if`/`end`, the pipes `quote`, `default`, `nindent`
 * and `toYaml`, and `{{-`/`-}}` trimming) the way Helm does, and fails on anything else: a chart
 * that starts using more must extend it (or run where helm is). When `helm` is on the PATH the
 * charts are also linted and rendered by it, and its output validated the same way.
 */

const chartsDir = resolve(import.meta.dirname, '../../../deploy/helm')
type Json = Record<string, unknown>

interface Scope {
  Values: Json
  Release: { Name: string; Namespace: string }
  Chart: Json
}

function lookup(scope: Scope, expression: string): unknown {
  const literal = /^"(.*)"$/.exec(expression)
  if (literal !== null) return literal[1]
  if (!expression.startsWith('.')) {
    throw new Error(`the stand-in renders paths and string literals only, not "${expression}"`)
  }
  return expression
    .slice(1)
    .split('.')
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], scope)
}

function pipeline(scope: Scope, text: string): unknown {
  const [head, ...pipes] = text.split('|').map((s) => s.trim())
  const toYamlCall = /^toYaml (\S+)$/.exec(head ?? '')
  let value: unknown =
    toYamlCall === null
      ? lookup(scope, head ?? '')
      : toYaml(lookup(scope, toYamlCall[1] as string)).trimEnd()
  for (const pipe of pipes) {
    const [fn, arg] = pipe.split(/\s+/, 2) as [string, string | undefined]
    if (fn === 'quote') value = JSON.stringify(String(value ?? ''))
    else if (fn === 'default' && arg !== undefined) {
      value =
        value === undefined || value === null || value === '' || value === false
          ? lookup(scope, arg)
          : value
    } else if (fn === 'nindent' && arg !== undefined) {
      value =
        '\n' +
        String(value)
          .split('\n')
          .map((line) => ' '.repeat(Number(arg)) + line)
          .join('\n')
    } else throw new Error(`the stand-in does not know the pipe "${pipe}"`)
  }
  return value
}

/** Renders one template the way `helm template` does, for the constructs above only. */
function renderTemplate(text: string, scope: Scope): string {
  const parts = text.split(/(\{\{-?\s*[\s\S]*?\s*-?\}\})/)
  let out = ''
  const conditions: boolean[] = []
  let trimNext = false
  for (const part of parts) {
    const action = /^\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}$/.exec(part)
    if (action === null) {
      const literal = trimNext ? part.replace(/^\s+/, '') : part
      trimNext = false
      if (conditions.every(Boolean)) out += literal
      continue
    }
    const [, trimBefore, body, trimAfter] = action as unknown as [string, string, string, string]
    if (trimBefore === '-') out = out.replace(/\s+$/, '')
    trimNext = trimAfter === '-'
    if (body.startsWith('/*')) continue
    const ifCall = /^if (.+)$/.exec(body)
    if (ifCall !== null) {
      const v = pipeline(scope, ifCall[1] as string)
      conditions.push(v !== undefined && v !== null && v !== '' && v !== false)
      continue
    }
    if (body === 'end') {
      if (conditions.pop() === undefined) throw new Error('end without if')
      continue
    }
    if (/^(else|range|with|define|include|template)\b/.test(body)) {
      throw new Error(`the stand-in does not render "{{ ${body} }}"`)
    }
    if (conditions.every(Boolean)) out += String(pipeline(scope, body) ?? '')
  }
  if (conditions.length > 0) throw new Error('if without end')
  return out
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base }
  for (const [k, v] of Object.entries(over)) {
    out[k] =
      v !== null && typeof v === 'object' && !Array.isArray(v) && typeof out[k] === 'object'
        ? deepMerge(out[k] as Json, v as Json)
        : v
  }
  return out
}

function renderChart(
  chart: string,
  values: Json = {},
  release = { Name: 'demo', Namespace: 'tools' },
): Json[] {
  const dir = join(chartsDir, chart)
  const meta = parseYaml(readFileSync(join(dir, 'Chart.yaml'), 'utf8')) as Json
  const scope: Scope = {
    Values: deepMerge(parseYaml(readFileSync(join(dir, 'values.yaml'), 'utf8')) as Json, values),
    Release: release,
    Chart: { Name: meta['name'], Version: meta['version'], AppVersion: meta['appVersion'] },
  }
  return readdirSync(join(dir, 'templates'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      yamlObjects(renderTemplate(readFileSync(join(dir, 'templates', file), 'utf8'), scope), file),
    )
}

function yamlObjects(text: string, source: string): Json[] {
  return parseAllDocuments(text)
    .map((doc) => {
      expect(
        doc.errors.map((e) => e.message),
        source,
      ).toEqual([])
      return doc.toJS() as Json
    })
    .filter((o) => o !== null)
}

function validateAll(objects: Json[]): void {
  for (const object of objects) {
    expect(kubernetesSchemaErrors(object), String(object['kind'])).toEqual([])
  }
}

const find = (objects: Json[], kind: string): Json =>
  objects.find((o) => o['kind'] === kind) as Json
const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>(
    (v, key) => (v as Record<string | number, unknown> | undefined)?.[key],
    value,
  )

describe('deploy/helm charts', () => {
  it('the stand-in renderer renders as Helm does and refuses what it does not know', () => {
    const scope: Scope = {
      Values: { a: { b: 'x' }, empty: '', list: { k: 1 } },
      Release: { Name: 'r', Namespace: 'n' },
      Chart: {},
    }
    expect(
      renderTemplate(
        'v: {{ .Values.a.b | quote }}\n{{- if .Values.empty }}\nno: 1\n{{- end }}\nn: {{ .Values.missing | default .Release.Namespace }}\nl:\n  {{- toYaml .Values.list | nindent 2 }}\n',
        scope,
      ),
    ).toBe('v: "x"\nn: n\nl:\n  k: 1\n')
    expect(() => renderTemplate('{{ include "x" . }}', scope)).toThrow(/does not render/)
    expect(() => renderTemplate('{{ .Values.a.b | upper }}', scope)).toThrow(
      /does not know the pipe/,
    )
  })

  it('understudy-platform: a Deployment running `understudy platform` on a persistent volume, probed on a route without API key, and its Service', () => {
    const defaults = renderChart('understudy-platform')
    expect(defaults.map((o) => o['kind']).sort()).toEqual([
      'Deployment',
      'PersistentVolumeClaim',
      'Service',
    ])
    validateAll(defaults)
    const deployment = find(defaults, 'Deployment')
    const container = at(deployment, 'spec', 'template', 'spec', 'containers', 0) as Json
    expect(container['command']).toEqual([
      '/sbin/tini',
      '--',
      'node',
      '/app/dist/src/cli/main.js',
      'platform',
    ])
    expect(container['args']).toEqual([
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--data-dir',
      '/data',
    ])
    expect(container['env']).toBeUndefined()
    const probe = at(container, 'readinessProbe', 'httpGet', 'path')
    expect(allRoutes.some((r) => r.method === 'GET' && r.path === probe && r.auth === 'none')).toBe(
      true,
    )
    expect(at(deployment, 'spec', 'strategy', 'type')).toBe('Recreate')
    expect(
      at(
        deployment,
        'spec',
        'template',
        'spec',
        'volumes',
        0,
        'persistentVolumeClaim',
        'claimName',
      ),
    ).toBe(at(find(defaults, 'PersistentVolumeClaim'), 'metadata', 'name'))
    const tuned = renderChart('understudy-platform', {
      bootstrapSecret: 'boot',
      persistence: { storageClassName: 'fast' },
    })
    validateAll(tuned)
    expect(
      at(
        find(tuned, 'Deployment'),
        'spec',
        'template',
        'spec',
        'containers',
        0,
        'env',
        0,
        'valueFrom',
        'secretKeyRef',
      ),
    ).toEqual({ name: 'boot', key: 'id' })
    expect(at(find(tuned, 'PersistentVolumeClaim'), 'spec', 'storageClassName')).toBe('fast')
  })

  it('understudy-agent: `understudy agent --driver kubernetes` with its token from a Secret, and a Role allowing exactly what the driver does', () => {
    const objects = renderChart('understudy-agent', {
      harborId: 'harbor-abc',
      shipId: 'ship-def',
      platformUrl: 'https://platform.test',
    })
    expect(objects.map((o) => o['kind']).sort()).toEqual([
      'Deployment',
      'Role',
      'RoleBinding',
      'ServiceAccount',
    ])
    validateAll(objects)
    const container = at(
      find(objects, 'Deployment'),
      'spec',
      'template',
      'spec',
      'containers',
      0,
    ) as Json
    expect(container['args']).toEqual([
      '--platform',
      'https://platform.test',
      '--harbor',
      'harbor-abc',
      '--ship',
      'ship-def',
      '--token',
      '$(UNDERSTUDY_AGENT_TOKEN)',
      '--driver',
      'kubernetes',
    ])
    expect(at(container, 'env', 0, 'valueFrom', 'secretKeyRef')).toEqual({
      name: 'understudy-agent-token',
      key: 'token',
    })
    expect(at(container, 'env', 1, 'value')).toBe('tools')
    // Every kind the driver applies (with an Ingress domain) is allowed, with the verbs it uses.
    const rules = at(find(objects, 'Role'), 'rules') as Array<{
      apiGroups: string[]
      resources: string[]
      verbs: string[]
    }>
    const applied = renderMockService(
      { mockServiceId: 1, name: 'x', replicas: 1, document: { transactions: [] } as never },
      { namespace: 'tools', image: 'u', ingressDomain: 'd.test' },
      't',
    )
    for (const object of applied) {
      const group = object.apiVersion.includes('/')
        ? (object.apiVersion.split('/')[0] as string)
        : ''
      const resource = {
        ConfigMap: 'configmaps',
        Secret: 'secrets',
        Service: 'services',
        Deployment: 'deployments',
        Ingress: 'ingresses',
      }[object.kind] as string
      const rule = rules.find((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
      expect(rule?.verbs.sort(), `${object.kind}`).toEqual(['create', 'delete', 'get', 'patch'])
    }
    expect(rules.find((r) => r.resources.includes('endpoints'))?.verbs).toEqual(['get'])
    expect(
      at(
        find(renderChart('understudy-agent', { mocksNamespace: 'mocks' }), 'Role'),
        'metadata',
        'namespace',
      ),
    ).toBe('mocks')
  })

  const helm = spawnSync('helm', ['version'], { encoding: 'utf8' })
  it.skipIf(helm.status !== 0)(
    'helm lints and renders both charts, and its output validates (skipped when helm is not installed)',
    () => {
      for (const chart of ['understudy-platform', 'understudy-agent']) {
        execFileSync('helm', ['lint', join(chartsDir, chart), '--set', 'harborId=h,shipId=s'], {
          encoding: 'utf8',
        })
        const rendered = execFileSync(
          'helm',
          [
            'template',
            'demo',
            join(chartsDir, chart),
            '--namespace',
            'tools',
            '--set',
            'harborId=h,shipId=s',
          ],
          { encoding: 'utf8' },
        )
        validateAll(yamlObjects(rendered, chart))
      }
    },
  )
})

import type {
  JsonObject,
  MonitorAuthor,
  MonitorBucket,
  MonitorEnvironment,
  MonitorIntegration,
  MonitorRevision,
  MonitorRun,
  MonitorSchedule,
  MonitorTest,
  User,
  Workspace,
} from '../../store/index.js'
import { STEP_ATTRIBUTES, shortInterval } from './validate.js'

/* The response shapes of the monitoring API, as the product's clients read them. */

/** Epoch seconds of a store timestamp (ms). */
function seconds(ms: number): number {
  return Math.floor(ms / 1000)
}

export function authorOf(user: User): MonitorAuthor {
  return {
    id: String(user.id),
    name: `${user.firstName} ${user.lastName}`.trim(),
    email: user.email,
  }
}

function teamView(workspace: Workspace): { id: string; name: string } {
  return { id: String(workspace.id), name: workspace.name }
}

/** A person as the team endpoints show one: `{uuid, name, email}` (email only with `account:email`). */
export function personView(
  user: User | undefined,
  withEmail: boolean,
): { uuid: string; name: string; email: string | null } | null {
  if (user === undefined) return null
  return {
    uuid: String(user.id),
    name: `${user.firstName} ${user.lastName}`.trim(),
    email: withEmail ? user.email : null,
  }
}

/** A team of GET /account: `{id, uuid, name, owner}`; the owner is the workspace's creator. */
export function accountTeamView(
  workspace: Workspace,
  owner: User | undefined,
  withEmail: boolean,
): JsonObject {
  return { ...teamView(workspace), uuid: String(workspace.id), owner: personView(owner, withEmail) }
}

/** GET /teams/{id}: the team, its counts, its buckets, who created and who owns it (the same user here). */
export function teamDetailView(
  workspace: Workspace,
  buckets: MonitorBucket[],
  userCount: number,
  owner: User | undefined,
  withEmail: boolean,
  base: string,
): JsonObject {
  const person = personView(owner, withEmail)
  return {
    ...teamView(workspace),
    uuid: String(workspace.id),
    created_at: seconds(workspace.created),
    buckets: buckets.map((b) => ({
      key: b.key,
      name: b.name,
      created_at: seconds(b.created),
      tests_url: `${base}/buckets/${b.key}/tests`,
    })),
    user_count: userCount,
    bucket_count: buckets.length,
    created_by: person,
    owned_by: person,
  }
}

/** An integration: `id` and `uuid` (go-runscope reads either), `type` and `integration_type` (the spec's name). */
export function integrationView(integration: MonitorIntegration): JsonObject {
  return {
    id: integration.id,
    uuid: integration.id,
    type: integration.type,
    integration_type: integration.type,
    description: integration.description,
    ...integration.doc,
    created_at: seconds(integration.created),
  }
}

export function bucketView(bucket: MonitorBucket, workspace: Workspace, base: string): JsonObject {
  return {
    name: bucket.name,
    key: bucket.key,
    default: bucket.isDefault,
    created_at: seconds(bucket.created),
    // Every bucket is its team's: none is visible to other teams, as a private bucket of the product.
    is_private: true,
    auth_token: null,
    verify_ssl: true,
    team: teamView(workspace),
    trigger_url: `${base}/radar/bucket/${bucket.triggerId}/trigger`,
    tests_url: `${base}/buckets/${bucket.key}/tests`,
    collections_url: `${base}/buckets/${bucket.key}/collections`,
    messages_url: `${base}/buckets/${bucket.key}/stream`,
  }
}

/** The list view: exactly the six attributes of the monitoring specification. */
export function testListView(test: MonitorTest): JsonObject {
  return {
    id: test.id,
    name: test.name,
    description: test.description,
    created_at: seconds(test.created),
    created_by: test.createdBy,
    default_environment_id: test.defaultEnvironmentId,
  }
}

/** Every attribute of the step's type, null when it was not sent (the monitoring specification). */
export function stepView(step: JsonObject): JsonObject {
  const attributes = STEP_ATTRIBUTES[String(step['step_type'])] ?? []
  const out: JsonObject = { id: step['id'], step_type: step['step_type'] }
  for (const name of attributes) out[name] = step[name] ?? null
  for (const [name, value] of Object.entries(step)) {
    if (out[name] === undefined) out[name] = value
  }
  if (step['step_type'] === 'condition' && Array.isArray(step['steps'])) {
    out['steps'] = (step['steps'] as JsonObject[]).map(stepView)
  }
  return out
}

const ENVIRONMENT_DEFAULTS: JsonObject = {
  parent_environment_id: null,
  initial_variables: {},
  preserve_cookies: false,
  verify_ssl: true,
  stop_on_failure: false,
  retry_on_failure: false,
  regions: ['local'],
  remote_agents: [],
  script: '',
  script_library: [],
  headers: {},
  auth: null,
  client_certificate: null,
  webhooks: null,
  integrations: [],
  http_version_support: 'h1_1',
  force_h2c: false,
  emails: { notify_all: false, notify_on: 'all', notify_threshold: 1, recipients: [] },
}

export function environmentView(env: MonitorEnvironment): JsonObject {
  const view: JsonObject = {
    ...ENVIRONMENT_DEFAULTS,
    ...env.doc,
    id: env.id,
    test_id: env.testId,
    version: '1.0',
    exported_at: seconds(Date.now()),
  }
  // Settings not sent (or sent empty) read back as their defaults, nested ones included.
  const emails = env.doc['emails']
  if (typeof emails === 'object' && emails !== null) {
    view['emails'] = {
      ...(ENVIRONMENT_DEFAULTS['emails'] as JsonObject),
      ...Object.fromEntries(Object.entries(emails).filter(([, v]) => v !== null)),
    }
  }
  return view
}

/** `1h` -> `1.0h`: the form in which the product reads intervals back (and go-runscope's tests expect). */
function normalInterval(interval: string): string {
  const short = shortInterval(interval) ?? interval
  return short.replace(/^(\d+)([mhd])$/, '$1.0$2')
}

export function scheduleView(schedule: MonitorSchedule): JsonObject {
  return {
    id: schedule.id,
    environment_id: schedule.environmentId,
    interval: normalInterval(schedule.interval),
    note: schedule.note,
    version: '1.0',
    exported_at: seconds(Date.now()),
  }
}

/** A run as the results endpoints and the test's `last_run` show it. */
export function runView(run: MonitorRun, base: string): JsonObject {
  return {
    ...run.doc,
    test_run_id: run.id,
    uuid: run.id,
    test_id: run.testId,
    bucket_key: run.bucketKey,
    environment_id: run.environmentId,
    result: run.result,
    status: run.result === 'queued' || run.result === 'working' ? run.result : 'completed',
    source: run.source,
    created_at: run.created / 1000,
    started_at: (run.doc['started_at'] as number | undefined) ?? run.created / 1000,
    finished_at: run.finished === null ? null : run.finished / 1000,
    test_run_url: `${base}/buckets/${run.bucketKey}/tests/${run.testId}/results/${run.id}`,
  }
}

/** A run without its per-request detail: the result list and a test's `last_run`. */
export function runSummaryView(run: MonitorRun, base: string): JsonObject {
  const {
    requests: _requests,
    scripts: _scripts,
    variables: _variables,
    ...summary
  } = runView(run, base)
  return summary
}

export function testDetailView(
  test: MonitorTest,
  base: string,
  environments: MonitorEnvironment[],
  schedules: MonitorSchedule[],
  lastRun: MonitorRun | undefined,
): JsonObject {
  return {
    ...testListView(test),
    trigger_url: `${base}/radar/${test.triggerId}/trigger`,
    environments: environments.map(environmentView),
    schedules: schedules.map(scheduleView),
    steps: test.steps.map(stepView),
    last_run: lastRun === undefined ? null : runSummaryView(lastRun, base),
    version: '1.0',
    exported_at: seconds(Date.now()),
  }
}

export function revisionView(revision: MonitorRevision, accountId: number): JsonObject {
  return {
    uuid: revision.uuid,
    timestamp: revision.timestamp,
    item_type: revision.itemType,
    item_id: revision.itemId,
    author_uuid: revision.author.id,
    author_name: revision.author.name,
    author_email: revision.author.email,
    organization_id: String(accountId),
    bucket_key: revision.bucketKey,
    source: 'api',
  }
}

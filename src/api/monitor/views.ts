import type { JsonObject, MonitorAuthor, MonitorBucket, MonitorEnvironment, MonitorRevision, MonitorRun, MonitorSchedule, MonitorTest, User, Workspace } from '../../store/index.js'
import { STEP_ATTRIBUTES } from './validate.js'

/* The response shapes of the monitoring API, as the product's clients read them. */

/** Epoch seconds of a store timestamp (ms). */
export function seconds (ms: number): number {
  return Math.floor(ms / 1000)
}

export function authorOf (user: User): MonitorAuthor {
  return { id: String(user.id), name: `${user.firstName} ${user.lastName}`.trim(), email: user.email }
}

export function teamView (workspace: Workspace): { id: string; name: string } {
  return { id: String(workspace.id), name: workspace.name }
}

export function bucketView (bucket: MonitorBucket, workspace: Workspace, base: string): JsonObject {
  return {
    name: bucket.name,
    key: bucket.key,
    default: bucket.isDefault,
    auth_token: null,
    verify_ssl: true,
    team: teamView(workspace),
    trigger_url: `${base}/radar/bucket/${bucket.triggerId}/trigger`,
    tests_url: `${base}/buckets/${bucket.key}/tests`,
    collections_url: `${base}/buckets/${bucket.key}/collections`,
    messages_url: `${base}/buckets/${bucket.key}/stream`,
  }
}

/** The list view: exactly the six attributes of spec/000. */
export function testListView (test: MonitorTest): JsonObject {
  return {
    id: test.id,
    name: test.name,
    description: test.description,
    created_at: seconds(test.created),
    created_by: test.createdBy,
    default_environment_id: test.defaultEnvironmentId,
  }
}

/** Every attribute of the step's type, null when it was not sent (spec/000). */
export function stepView (step: JsonObject): JsonObject {
  const attributes = STEP_ATTRIBUTES[String(step['step_type'])] ?? []
  const out: JsonObject = { id: step['id'], step_type: step['step_type'] }
  for (const name of attributes) out[name] = step[name] ?? null
  for (const [name, value] of Object.entries(step)) {
    if (out[name] === undefined) out[name] = value
  }
  if (step['step_type'] === 'condition' && Array.isArray(step['steps'])) out['steps'] = (step['steps'] as JsonObject[]).map(stepView)
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
  emails: { notify_all: false, notify_on: 'all', notify_threshold: 1, recipients: [] },
}

export function environmentView (env: MonitorEnvironment): JsonObject {
  return { ...ENVIRONMENT_DEFAULTS, ...env.doc, id: env.id, test_id: env.testId, version: '1.0', exported_at: seconds(Date.now()) }
}

export function scheduleView (schedule: MonitorSchedule): JsonObject {
  return { id: schedule.id, environment_id: schedule.environmentId, interval: schedule.interval, note: schedule.note, version: '1.0', exported_at: seconds(Date.now()) }
}

/** A run as the results endpoints and the test's `last_run` show it. */
export function runView (run: MonitorRun, base: string): JsonObject {
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
export function runSummaryView (run: MonitorRun, base: string): JsonObject {
  const { requests: _requests, scripts: _scripts, variables: _variables, ...summary } = runView(run, base)
  return summary
}

export function testDetailView (test: MonitorTest, base: string, environments: MonitorEnvironment[], schedules: MonitorSchedule[], lastRun: MonitorRun | undefined): JsonObject {
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

export function revisionView (revision: MonitorRevision, accountId: number): JsonObject {
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

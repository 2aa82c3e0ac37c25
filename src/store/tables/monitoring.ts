import type {
  MonitorBatch,
  MonitorBucket,
  MonitorEnvironment,
  MonitorIntegration,
  MonitorRevision,
  MonitorRun,
  MonitorSchedule,
  MonitorTest,
  OAuthApp,
  OAuthCode,
  OAuthToken,
} from '../monitoring.js'
import type { ColumnReader, Row } from './columns.js'

const str = (v: unknown): string => v as string
const num = (v: unknown): number => v as number

/** The record of each row of the monitoring API's and the OAuth provider's tables. */
interface MonitoringRows {
  bucketOf: (r: Row) => MonitorBucket
  testOf: (r: Row) => MonitorTest
  environmentOf: (r: Row) => MonitorEnvironment
  scheduleOf: (r: Row) => MonitorSchedule
  runOf: (r: Row) => MonitorRun
  integrationOf: (r: Row) => MonitorIntegration
  batchOf: (r: Row) => MonitorBatch
  revisionOf: (r: Row) => MonitorRevision
  appOf: (r: Row) => OAuthApp
  tokenOf: (r: Row) => OAuthToken
  codeOf: (r: Row) => OAuthCode
}

/**
 * The row mappers of the monitoring tables, the same columns in both dialects; only how a bool
 * or json column comes back from the driver differs, and `read` says that.
 *
 * @example
 * const { runOf } = monitoringRows(sqliteReader)
 */
export function monitoringRows(read: ColumnReader): MonitoringRows {
  return {
    bucketOf: (r: Row): MonitorBucket => {
      return {
        key: str(r['key']),
        workspaceId: num(r['workspace_id']),
        name: str(r['name']),
        triggerId: str(r['trigger_id']),
        isDefault: read.bool(r['is_default']),
        created: num(r['created']),
      }
    },
    testOf: (r: Row): MonitorTest => {
      return {
        id: str(r['id']),
        bucketKey: str(r['bucket_key']),
        name: str(r['name']),
        description: r['description'] as string | null,
        defaultEnvironmentId: r['default_environment_id'] as string | null,
        triggerId: str(r['trigger_id']),
        createdBy: read.json(r['created_by']),
        steps: read.json(r['steps']),
        created: num(r['created']),
        updated: num(r['updated']),
      }
    },
    environmentOf: (r: Row): MonitorEnvironment => {
      return {
        id: str(r['id']),
        bucketKey: str(r['bucket_key']),
        testId: r['test_id'] as string | null,
        doc: read.json(r['doc']),
        created: num(r['created']),
      }
    },
    scheduleOf: (r: Row): MonitorSchedule => {
      return {
        id: str(r['id']),
        testId: str(r['test_id']),
        environmentId: str(r['environment_id']),
        interval: str(r['interval']),
        note: r['note'] as string | null,
        created: num(r['created']),
      }
    },
    runOf: (r: Row): MonitorRun => {
      return {
        id: str(r['id']),
        testId: str(r['test_id']),
        bucketKey: str(r['bucket_key']),
        environmentId: str(r['environment_id']),
        result: r['result'] as MonitorRun['result'],
        source: str(r['source']),
        created: num(r['created']),
        finished: r['finished'] as number | null,
        doc: read.json(r['doc']),
        region: r['region'] as string | null,
        pinnedAgent: r['pinned_agent'] as string | null,
        agent: r['agent'] as string | null,
      }
    },
    integrationOf: (r: Row): MonitorIntegration => {
      return {
        id: str(r['id']),
        workspaceId: num(r['workspace_id']),
        type: str(r['integration_type']),
        description: str(r['description']),
        doc: read.json(r['doc']),
        created: num(r['created']),
      }
    },
    batchOf: (r: Row): MonitorBatch => {
      return {
        id: str(r['id']),
        bucketKey: str(r['bucket_key']),
        runIds: read.json(r['run_ids']),
        runsFailed: num(r['runs_failed']),
        created: num(r['created']),
      }
    },
    revisionOf: (r: Row): MonitorRevision => {
      return {
        uuid: str(r['uuid']),
        bucketKey: str(r['bucket_key']),
        testId: r['test_id'] as string | null,
        itemType: r['item_type'] as MonitorRevision['itemType'],
        itemId: str(r['item_id']),
        timestamp: num(r['timestamp']),
        author: read.json(r['author']),
        doc: read.json(r['doc']),
      }
    },
    appOf: (r: Row): OAuthApp => {
      return {
        clientId: str(r['client_id']),
        userId: num(r['user_id']),
        name: str(r['name']),
        websiteUrl: str(r['website_url']),
        callbackUrl: str(r['callback_url']),
        secretHash: str(r['secret_hash']),
        created: num(r['created']),
      }
    },
    tokenOf: (r: Row): OAuthToken => {
      return {
        id: str(r['id']),
        tokenHash: str(r['token_hash']),
        clientId: str(r['client_id']),
        userId: num(r['user_id']),
        scopes: read.json(r['scopes']),
        created: num(r['created']),
        revoked: r['revoked'] as number | null,
      }
    },
    codeOf: (r: Row): OAuthCode => {
      return {
        codeHash: str(r['code_hash']),
        clientId: str(r['client_id']),
        userId: num(r['user_id']),
        scopes: read.json(r['scopes']),
        redirectUri: str(r['redirect_uri']),
        expires: num(r['expires']),
        used: read.bool(r['used']),
      }
    },
  }
}

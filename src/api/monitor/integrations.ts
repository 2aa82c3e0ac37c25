import { randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import type { JsonObject, Repositories } from '../../store/index.js'
import { fieldCheckOf, invalidField } from '../validation.js'
import { teamOf } from './root.js'
import type { MonitorRoute } from './types.js'
import { isObject } from './validate.js'
import { integrationView } from './views.js'

/*
 * A team's integrations: the notification channels its environments reference by id
 * (`integrations: [{id}]`). Only the kinds the runner delivers itself exist: `webhook` (a JSON
 * POST of the run's result to `url`) and `email` (a summary to `recipients`, through the
 * platform's SMTP server). Third-party services (Slack, PagerDuty...) need accounts this platform
 * does not hold; a webhook reaches whatever relays them.
 */

const INTEGRATION_TYPES = ['webhook', 'email'] as const
const MAX_INTEGRATIONS = 100
const EMAIL = '^[^\\s@]+@[^\\s@]+$'

const checkIntegration = fieldCheckOf({
  type: 'object',
  failure: 'must be an integration object with integration_type and its settings',
})
const description = {
  type: ['string', 'null'],
  maxLength: 200,
  failure: 'must be a string of at most 200 characters',
}
/** The settings of each kind, checked once the kind is known (`integration_type` or its alias `type`). */
const checkSettingsOf: Readonly<
  Record<(typeof INTEGRATION_TYPES)[number], (body: unknown) => void>
> = {
  webhook: fieldCheckOf({
    type: 'object',
    required: ['url'],
    properties: {
      description,
      url: {
        type: 'string',
        maxLength: 2000,
        pattern: '^[hH][tT][tT][pP][sS]?://\\S+$',
        failure: 'is required for a webhook integration: an http or https URL',
      },
    },
  }),
  email: fieldCheckOf({
    type: 'object',
    required: ['recipients'],
    properties: {
      description,
      recipients: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        failure: 'is required for an email integration: 1 to 50 e-mail addresses',
        items: {
          anyOf: [
            { type: 'string', pattern: EMAIL },
            {
              type: 'object',
              required: ['email'],
              properties: { email: { type: 'string', pattern: EMAIL } },
            },
          ],
          failure: 'must be an e-mail address (or {email})',
        },
      },
    },
  }),
}

/** An integration body: `integration_type` (or `type`), `description`, and the kind's own settings. */
function readIntegration(body: unknown): { type: string; description: string; doc: JsonObject } {
  checkIntegration(body)
  const sent = body as JsonObject
  const type = sent['integration_type'] ?? sent['type']
  if (typeof type !== 'string' || !(INTEGRATION_TYPES as readonly string[]).includes(type)) {
    throw invalidField(
      '/integration_type',
      `must be one of ${INTEGRATION_TYPES.join(', ')} (the kinds the runner delivers)`,
    )
  }
  checkSettingsOf[type as (typeof INTEGRATION_TYPES)[number]](sent)
  const given = (sent['description'] ?? '') as string
  if (type === 'webhook') {
    const url = sent['url'] as string
    return { type, description: given === '' ? url : given, doc: { url } }
  }
  const recipients = (sent['recipients'] as unknown[]).map((r) =>
    typeof r === 'string' ? r : (r as { email: string }).email,
  )
  return {
    type,
    description: given === '' ? recipients.join(', ') : given,
    doc: { recipients: recipients.map((email) => ({ email })) },
  }
}

/**
 * The `integrations` of an environment body, checked against the team's: each entry an id or an
 * object with `id`; stored as `{id, integration_type, description}` (the monitoring specification's
 * shape).
 */
export async function readEnvironmentIntegrations(
  store: Pick<Repositories, 'monitoring'>,
  workspaceId: number,
  value: unknown,
): Promise<JsonObject[] | null> {
  if (value === undefined || value === null) return null
  if (!Array.isArray(value)) {
    throw invalidField('/integrations', 'must be an array of integration ids (or objects with id)')
  }
  const out: JsonObject[] = []
  for (const [i, item] of value.entries()) {
    // Go clients send both `id` and `uuid`, one of them empty.
    const id =
      typeof item === 'string'
        ? item
        : isObject(item)
          ? item['id'] === '' || item['id'] === undefined
            ? item['uuid']
            : item['id']
          : undefined
    if (typeof id !== 'string' || id === '') {
      throw invalidField(
        `/integrations/${i}/id`,
        'is required: the id of an integration of the team (GET /teams/{id}/integrations)',
      )
    }
    const integration = await store.monitoring.getIntegration(workspaceId, id)
    if (integration === undefined) {
      throw invalidField(`/integrations/${i}/id`, `names no integration of this team: ${id}`)
    }
    if (!out.some((o) => o['id'] === id)) {
      out.push({ id, integration_type: integration.type, description: integration.description })
    }
  }
  return out
}

const base = '/teams/:teamId/integrations'

export const integrationRoutes: MonitorRoute[] = [
  {
    method: 'GET',
    path: base,
    scope: 'team:read',
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      return {
        data: (await ctx.deps.store.monitoring.listIntegrations(team.id)).map(integrationView),
      }
    },
  },
  {
    method: 'POST',
    path: base,
    scope: 'bucket:write',
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      const input = readIntegration(await ctx.json())
      if ((await ctx.deps.store.monitoring.listIntegrations(team.id)).length >= MAX_INTEGRATIONS) {
        throw invalidField('/', `a team has at most ${MAX_INTEGRATIONS} integrations`)
      }
      const created = await ctx.deps.store.monitoring.createIntegration({
        id: randomUUID(),
        workspaceId: team.id,
        ...input,
      })
      return { status: 201, data: integrationView(created) }
    },
  },
  {
    method: 'GET',
    path: `${base}/:integrationId`,
    scope: 'team:read',
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      const id = ctx.params['integrationId'] ?? ''
      const integration = await ctx.deps.store.monitoring.getIntegration(team.id, id)
      if (integration === undefined) throw createError('ERR_API_NOT_FOUND', [`Integration ${id}`])
      return { data: integrationView(integration) }
    },
  },
  {
    method: 'DELETE',
    path: `${base}/:integrationId`,
    scope: 'bucket:write',
    handler: async (ctx) => {
      const team = await teamOf(ctx)
      const id = ctx.params['integrationId'] ?? ''
      if (!(await ctx.deps.store.monitoring.deleteIntegration(team.id, id))) {
        throw createError('ERR_API_NOT_FOUND', [`Integration ${id}`])
      }
      return { status: 204, raw: null }
    },
  },
]

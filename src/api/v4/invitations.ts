import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { createError } from '../../errors/index.js'
import {
  ACCOUNT_ROLES,
  WORKSPACE_ROLES,
  type Invitation,
  type Repositories,
  type User,
  type WorkspaceRole,
} from '../../store/index.js'
import { membershipOf } from '../access/authorize.js'
import { isAccountAdmin } from '../access/roles.js'
import { epochSeconds } from '../format.js'
import type { ApiContext, HandlerResult, Route } from '../http/types.js'
import { listQueryOf } from '../paging.js'
import { invalidField, validatorOf } from '../validation.js'
import { displayNameOf } from './views.js'

interface InvitationInput {
  inviteeEmail: string
  attachAutomatically?: boolean
  accountRoles?: string[]
  workspacesId?: number[]
  workspacesRoles?: WorkspaceRole[]
}

const readInvitations = validatorOf<{ invitations: InvitationInput[] }>({
  type: 'object',
  required: ['invitations'],
  additionalProperties: false,
  properties: {
    invitations: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['inviteeEmail'],
        additionalProperties: false,
        properties: {
          // A pragmatic address check: one @, no spaces, a dot in the domain.
          inviteeEmail: {
            type: 'string',
            maxLength: 254,
            pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
          },
          attachAutomatically: { type: 'boolean' },
          accountRoles: {
            type: 'array',
            minItems: 1,
            maxItems: 4,
            uniqueItems: true,
            items: { type: 'string', enum: [...ACCOUNT_ROLES] },
          },
          workspacesId: { type: 'array', maxItems: 1000, items: { type: 'integer', minimum: 1 } },
          workspacesRoles: {
            type: 'array',
            maxItems: 1000,
            items: { type: 'string', enum: [...WORKSPACE_ROLES] },
          },
        },
      },
    },
  },
})

/** Tokens are secrets: only their SHA-256 is stored (high-entropy, so a plain digest is enough). */
function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function linksOf(ctx: Pick<ApiContext, 'deps'>, token: string) {
  const base = `${ctx.deps.options.baseUrl}/api/v4/invitations/${encodeURIComponent(token)}`
  return { acceptUrl: `${base}/accept`, rejectUrl: `${base}/reject` }
}

/**
 * The invitation of the administration specification. The token and the accept/reject links are
 * shown once, in the create response (only a digest is kept): in lists they are null.
 */
function invitationView(
  inv: Invitation,
  extra: {
    accountName: string
    inviting: User | undefined
    token: string | null
    workspaceNames: string[]
  },
  ctx: Pick<ApiContext, 'deps'>,
) {
  const links =
    extra.token === null ? { acceptUrl: null, rejectUrl: null } : linksOf(ctx, extra.token)
  return {
    id: inv.id,
    inviteeEmail: inv.inviteeEmail,
    token: extra.token,
    accountRoles: inv.accountRoles,
    workspacesRoles: inv.workspaceRoles,
    workspacesId: inv.workspaceIds,
    workspaceNames: extra.workspaceNames,
    attachAutomatically: inv.attachAutomatically,
    status: inv.status,
    created: epochSeconds(inv.created),
    updated: epochSeconds(inv.updated),
    accountId: inv.accountId,
    accountName: extra.accountName,
    inviteeUserId: inv.inviteeUserId,
    invitedById: inv.invitedById,
    ...links,
    // strings in the administration specification: '' when the inviting user is gone
    invitingEmail: extra.inviting?.email ?? '',
    invitingName: extra.inviting === undefined ? '' : displayNameOf(extra.inviting),
  }
}

/**
 * Puts a user into an account (creating the user when its e-mail is unknown; an existing user is
 * attached, never duplicated) and into the invitation's workspaces. An existing membership keeps
 * its roles; workspace roles are set as invited.
 */
async function attach(
  tx: Repositories,
  inv: Pick<
    Invitation,
    'accountId' | 'inviteeEmail' | 'accountRoles' | 'workspaceIds' | 'workspaceRoles'
  >,
): Promise<User> {
  let user = await tx.users.getByEmail(inv.inviteeEmail)
  if (user === undefined) {
    const local = inv.inviteeEmail.split('@')[0] ?? ''
    user = await tx.users.create({
      email: inv.inviteeEmail,
      firstName: local,
      lastName: '',
      enabled: true,
      accountRoles: inv.accountRoles,
      accountId: inv.accountId,
    })
  } else if ((await tx.tenancy.member(inv.accountId, user.id)) === undefined) {
    await tx.tenancy.setMember({
      accountId: inv.accountId,
      userId: user.id,
      roles: inv.accountRoles,
      enabled: true,
    })
  }
  for (const [i, workspaceId] of inv.workspaceIds.entries()) {
    const role = (inv.workspaceRoles[i] ?? inv.workspaceRoles[0] ?? 'viewer') as WorkspaceRole
    await tx.tenancy.setWorkspaceMember({ workspaceId, userId: user.id, role, enabled: true })
  }
  return user
}

async function create(ctx: ApiContext): Promise<HandlerResult> {
  const accountId = ctx.intParam('accountId')
  const raw = await ctx.json()
  // the administration specification names the field `invitations`; a bare array is accepted too.
  const { invitations } = readInvitations(Array.isArray(raw) ? { invitations: raw } : raw)
  const callerIsAdmin = isAccountAdmin(membershipOf(ctx, accountId))
  const store = ctx.deps.store
  const account = await store.accounts.get(accountId)
  if (account === undefined) throw createError('ERR_API_NOT_FOUND', [`Account ${accountId}`])
  const accountWorkspaces = new Map(
    (await store.workspaces.listByAccount(accountId, { limit: -1, skip: 0 })).items.map((w) => [
      w.id,
      w.name,
    ]),
  )
  const seen = new Set<string>()
  for (const [i, inv] of invitations.entries()) {
    const email = inv.inviteeEmail.toLowerCase()
    if (seen.has(email)) {
      throw createError(
        'ERR_API_CONFLICT',
        [`${inv.inviteeEmail} is invited twice in this request`],
        { details: [{ path: `/invitations/${i}/inviteeEmail`, message: 'is a duplicate' }] },
      )
    }
    seen.add(email)
    const roles = inv.accountRoles ?? ['standard']
    if (!callerIsAdmin && roles.some((r) => r === 'owner' || r === 'admin')) {
      throw createError('ERR_API_FORBIDDEN', [
        'only an account owner or admin may invite owners and admins',
      ])
    }
    for (const [j, id] of (inv.workspacesId ?? []).entries()) {
      if (!accountWorkspaces.has(id)) {
        throw invalidField(
          `/invitations/${i}/workspacesId/${j}`,
          `workspace ${id} is not in account ${accountId}`,
        )
      }
    }
    const ws = inv.workspacesId ?? []
    const wr = inv.workspacesRoles ?? []
    if (ws.length > 0 && wr.length !== 1 && wr.length !== ws.length) {
      throw invalidField(
        `/invitations/${i}/workspacesRoles`,
        'must hold one role, or one per workspace of workspacesId',
      )
    }
  }
  const inviting = ctx.principal.user
  const result = await store.write(async (tx) => {
    const out = []
    for (const [i, input] of invitations.entries()) {
      if ((await tx.tenancy.pendingInvitation(accountId, input.inviteeEmail)) !== undefined) {
        throw createError(
          'ERR_API_CONFLICT',
          [`${input.inviteeEmail} already has a pending invitation to account ${accountId}`],
          {
            details: [
              { path: `/invitations/${i}/inviteeEmail`, message: 'has a pending invitation' },
            ],
          },
        )
      }
      const token = randomBytes(24).toString('base64url')
      const fields = {
        accountId,
        inviteeEmail: input.inviteeEmail,
        accountRoles: input.accountRoles ?? ['standard'],
        workspaceIds: input.workspacesId ?? [],
        workspaceRoles:
          input.workspacesRoles ??
          (input.workspacesId !== undefined && input.workspacesId.length > 0 ? ['viewer'] : []),
      }
      const attachNow = input.attachAutomatically ?? false
      const user = attachNow
        ? await attach(tx, fields)
        : await tx.users.getByEmail(input.inviteeEmail)
      const inv = await tx.tenancy.createInvitation({
        id: randomUUID(),
        token: digestOf(token),
        ...fields,
        attachAutomatically: attachNow,
        status: attachNow ? 'accepted' : 'pending',
        invitedById: inviting.id,
        inviteeUserId: user?.id ?? null,
      })
      const workspaceNames = inv.workspaceIds.map((id) => accountWorkspaces.get(id) ?? '')
      out.push(
        invitationView(
          inv,
          { accountName: account.name, inviting, token: attachNow ? null : token, workspaceNames },
          ctx,
        ),
      )
    }
    return out
  })
  return { status: 201, result }
}

/** Accepting or rejecting by the link's token (GET for a browser, POST for a client; the administration specification leaves the method open). */
function answer(decision: 'accepted' | 'rejected') {
  return async (ctx: ApiContext): Promise<HandlerResult> => {
    const token = ctx.params['token'] ?? ''
    const store = ctx.deps.store
    const outcome = await store.write(async (tx) => {
      const inv = await tx.tenancy.invitationByToken(digestOf(token))
      if (inv === undefined) throw createError('ERR_API_NOT_FOUND', ['Invitation'])
      if (inv.status !== 'pending') {
        throw createError('ERR_API_CONFLICT', [`the invitation was already ${inv.status}`])
      }
      const user = decision === 'accepted' ? await attach(tx, inv) : undefined
      return await tx.tenancy.setInvitationStatus(inv.id, decision, user?.id ?? null)
    })
    if (outcome === undefined) throw createError('ERR_API_NOT_FOUND', ['Invitation'])
    const account = await store.accounts.get(outcome.accountId)
    const profile = await store.tenancy.profile(outcome.accountId)
    const welcome =
      decision === 'accepted' && profile?.welcomeLinkUrl != null
        ? { linkText: profile.welcomeLinkText ?? 'Continue', linkUrl: profile.welcomeLinkUrl }
        : null
    const result = {
      id: outcome.id,
      status: outcome.status,
      accountId: outcome.accountId,
      accountName: account?.name ?? null,
      inviteeEmail: outcome.inviteeEmail,
      workspacesId: outcome.workspaceIds,
      welcomeScreen: welcome,
    }
    if ((ctx.req.headers.accept ?? '').includes('text/html')) {
      return {
        status: 200,
        raw: welcomePage(result),
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }
    }
    return { result }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The page a browser sees after following a link: the account's welcome link replaces the default button. */
function welcomePage(r: {
  status: string
  accountName: string | null
  welcomeScreen: { linkText: string; linkUrl: string } | null
}): string {
  const title =
    r.status === 'accepted' ? `Welcome to ${r.accountName ?? 'the account'}` : 'Invitation declined'
  const link =
    r.welcomeScreen === null
      ? ''
      : `<p><a href="${escapeHtml(r.welcomeScreen.linkUrl)}">${escapeHtml(r.welcomeScreen.linkText)}</a></p>`
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${link}</body></html>`
}

/**
 * Invitations (the administration specification): `POST /accounts/{id}/invitations` (attach at
 * once, or a pending invitation with accept/reject links; a second pending invitation of one e-mail
 * is 409), `GET /accounts/{id}/invitations`, and the links, which take GET and POST and need no API
 * key (the token is the credential).
 */
export const invitationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v4/accounts/:accountId/invitations',
    family: 'v4',
    handler: create,
  },
  {
    method: 'GET',
    path: '/api/v4/accounts/:accountId/invitations',
    family: 'v4',
    handler: async (ctx) => {
      const accountId = ctx.intParam('accountId')
      const query = listQueryOf(ctx.query, ['id', 'created', 'updated', 'email'])
      const store = ctx.deps.store
      const account = await store.accounts.get(accountId)
      const page = await store.tenancy.invitations(accountId, query)
      const names = new Map(
        (await store.workspaces.listByAccount(accountId, { limit: -1, skip: 0 })).items.map((w) => [
          w.id,
          w.name,
        ]),
      )
      const result = []
      for (const inv of page.items) {
        const inviting =
          inv.invitedById === null ? undefined : await store.users.get(inv.invitedById)
        result.push(
          invitationView(
            inv,
            {
              accountName: account?.name ?? '',
              inviting,
              token: null,
              workspaceNames: inv.workspaceIds.map((id) => names.get(id) ?? ''),
            },
            ctx,
          ),
        )
      }
      return {
        result,
        paging: { limit: query.limit, skip: query.skip, total: page.total },
        extra: { hidden: 0 },
      }
    },
  },
  ...(['GET', 'POST'] as const).flatMap((method): Route[] => [
    {
      method,
      path: '/api/v4/invitations/:token/accept',
      family: 'v4',
      auth: 'none',
      handler: answer('accepted'),
    },
    {
      method,
      path: '/api/v4/invitations/:token/reject',
      family: 'v4',
      auth: 'none',
      handler: answer('rejected'),
    },
  ]),
]

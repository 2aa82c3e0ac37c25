import { describe, expect, it } from 'vitest'
import { startTestPlatform } from '../helpers/platform.js'

/*
 * The administration API (the administration specification) in the document's shapes: string fields are strings (a
 * Python client's models refuse null there), workspace lists carry `expiration` and `credits`,
 * and the create and detail views carry every feature flag, plan field and billing field.
 */

interface V4<T> {
  api_version: number
  error: unknown
  result: T
  total?: number
}

const FEATURE_FLAGS = [
  'webdriver',
  'multi',
  'multi-location',
  'multiLocation',
  'dedicatedIps',
  'privateLocations',
  'functionalTest',
  'mobileRecorder',
  'disableResultsEmail',
  'pivotsReport',
  'testScheduler',
  'privateCloudScheduler',
  'tdm',
  'enableSecrets',
  'queueTest',
  'queueFunctionalTest',
  'functionalApi',
  'functionalGui',
  'functionalGuiLivestream',
  'functionalTestSuite',
  'gridMultipleIterations',
  'objectRepository',
  'keyboardShortcuts',
  'cloudResourceUsageReport',
  'upstreamProxy',
  'gridWindows',
  'newTest',
  'enableNewMultiTest',
  'userExperienceTesting',
  'mockServicesForPrivateCloud',
  'enableTestYamlEdit',
  'stagingAccount',
  'devTest',
]
const PLAN_INTEGERS = [
  'totalCredits',
  'concurrency',
  'engines',
  'duration',
  'reportRetention',
  'threadsPerEngine',
  'threadsPerMediumEngine',
  'maxWorkspaces',
  'maxParallelTests',
  'leftFunctional',
  'quantityFunctional',
  'maxConcurrentBrowsers',
  'maxConcurrentMockServices',
  'mockServicesExpiration',
  'mockServicesMaxReplicas',
  'unlimitedTestingUpTo',
  'createdAt',
  'updatedAt',
]
const PLAN_BOOLEANS = ['isMetered', 'isSandBox', 'isFreeTier', 'isTrial', 'multiLocation']
const BILLING = [
  'defaultPaymentSource',
  'city',
  'companyName',
  'country',
  'email',
  'fullName',
  'phoneNumber',
  'postcode',
  'street',
  'vat',
]

function expectWorkspaceExtras(w: Record<string, unknown>): void {
  const features = w['features'] as Record<string, unknown>
  expect(Object.keys(features).sort()).toEqual([...FEATURE_FLAGS].sort())
  for (const name of FEATURE_FLAGS) expect(typeof features[name], name).toBe('boolean')
  expect(features['mockServicesForPrivateCloud']).toBe(true)
  expect(features['webdriver']).toBe(false)
  const plan = w['plan'] as Record<string, unknown>
  for (const name of ['id', 'name', 'type', 'paymentServiceType']) {
    expect(typeof plan[name], name).toBe('string')
  }
  for (const name of PLAN_INTEGERS) expect(Number.isInteger(plan[name]), name).toBe(true)
  for (const name of PLAN_BOOLEANS) expect(typeof plan[name], name).toBe('boolean')
  expect(plan['trial']).toHaveProperty('end')
  // epoch milliseconds, as the document says
  expect(plan['createdAt'] as number).toBeGreaterThan(1e12)
  expect(Object.keys(w['billing'] as object).sort()).toEqual([...BILLING].sort())
  expect(w['expiration']).toBeNull()
  expect(w['credits']).toBe(0)
}

describe('administration API: the documented shapes', () => {
  it('answers the account description and welcome-screen texts as strings, never null', async () => {
    const platform = await startTestPlatform()
    for (const path of ['/api/v4/accounts', `/api/v4/accounts/${platform.accountId}`]) {
      const body = (await (await platform.request(path)).json()) as V4<
        Record<string, unknown> | Array<Record<string, unknown>>
      >
      const account = Array.isArray(body.result) ? body.result[0] : body.result
      expect(account?.['description']).toBe('')
      expect(account?.['welcomeScreenLinkText']).toBe('')
      expect(account?.['welcomeScreenLinkUrl']).toBe('')
    }
    const project = (await (
      await platform.request('/api/v4/projects', {
        method: 'POST',
        json: { name: 'p', workspaceId: platform.workspaceId },
      })
    ).json()) as V4<{ description: unknown }>
    expect(project.result.description).toBe('')
  })

  it('lists workspaces with expiration and credits; create and detail carry every feature flag, plan and billing field', async () => {
    const platform = await startTestPlatform()
    const created = await platform.request('/api/v4/workspaces', {
      method: 'POST',
      json: { name: 'second', accountId: platform.accountId },
    })
    expect(created.status).toBe(201)
    const made = (await created.json()) as V4<Record<string, unknown> & { id: number }>
    expectWorkspaceExtras(made.result)
    const detail = (await (
      await platform.request(`/api/v4/workspaces/${made.result.id}`)
    ).json()) as V4<Record<string, unknown>>
    expectWorkspaceExtras(detail.result)
    const list = (await (
      await platform.request(
        `/api/v4/workspaces?accountId=${platform.accountId}&enabled=true&limit=100&skip=0`,
      )
    ).json()) as V4<Array<Record<string, unknown>>>
    expect(list.total).toBe(2)
    for (const w of list.result) {
      expect(w).toMatchObject({ expiration: null, credits: 0 })
      expect(w).not.toHaveProperty('features')
      expect(w).not.toHaveProperty('plan')
    }
  })

  it('shows an invitation token once, at creation; the list shows null (documented departure)', async () => {
    const platform = await startTestPlatform()
    const path = `/api/v4/accounts/${platform.accountId}/invitations`
    const made = (await (
      await platform.request(path, {
        method: 'POST',
        json: { invitations: [{ inviteeEmail: 'new@acme.test', attachAutomatically: false }] },
      })
    ).json()) as V4<Array<{ token: string | null; invitingEmail: string; invitingName: string }>>
    expect(made.result[0]?.token).toMatch(/\S{16,}/)
    const listed = (await (await platform.request(path)).json()) as V4<
      Array<{ token: unknown; invitingEmail: unknown; invitingName: unknown }>
    >
    expect(listed.result[0]?.token).toBeNull()
    expect(typeof listed.result[0]?.invitingEmail).toBe('string')
    expect(typeof listed.result[0]?.invitingName).toBe('string')
  })
})

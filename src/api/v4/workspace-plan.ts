import type { Workspace } from '../../store/index.js'
import { isOffered } from './functionalities.js'

/*
 * The `features`, `plan` and `billing` of a workspace (the administration specification,
 * docs/api.md#workspaces-and-projects): every name and field the document lists, in its types, with
 * values that describe this platform: a self-hosted plan without limits or credits, no payment, and
 * a feature flag set only where the platform does the thing. -1 in a plan field means "no limit"
 * (the administration specification leaves it unsaid; docs/api.md).
 */

/** What a flag depends on: always on, always off, or on while an interface offers a functionality. */
type Flag = boolean | { functionality: string }

/**
 * The 33 flags the administration specification shows in the create response, in its order.
 * Understudy serves mock services on a private location (its local runtime host, `harbor-local`)
 * with outbound proxy settings, and, with the monitoring API loaded, API functional tests with
 * schedules. It runs no load tests, browsers, grids, test data or recorders of its own.
 */
const FLAGS: ReadonlyArray<readonly [string, Flag]> = [
  ['webdriver', false],
  ['multi', false],
  ['multi-location', false],
  ['multiLocation', false],
  ['dedicatedIps', false],
  ['privateLocations', true],
  ['functionalTest', { functionality: 'functionalApi' }],
  ['mobileRecorder', false],
  ['disableResultsEmail', false],
  ['pivotsReport', false],
  ['testScheduler', { functionality: 'functionalApi' }],
  ['privateCloudScheduler', false],
  ['tdm', false],
  ['enableSecrets', false],
  ['queueTest', false],
  ['queueFunctionalTest', false],
  ['functionalApi', { functionality: 'functionalApi' }],
  ['functionalGui', false],
  ['functionalGuiLivestream', false],
  ['functionalTestSuite', false],
  ['gridMultipleIterations', false],
  ['objectRepository', false],
  ['keyboardShortcuts', false],
  ['cloudResourceUsageReport', false],
  ['upstreamProxy', true],
  ['gridWindows', false],
  ['newTest', false],
  ['enableNewMultiTest', false],
  ['userExperienceTesting', false],
  ['mockServicesForPrivateCloud', true],
  ['enableTestYamlEdit', false],
  ['stagingAccount', false],
  ['devTest', false],
]

/** The names of the feature flags, as the administration specification lists them. */

/**
 * The feature flags of a workspace: every name of the administration specification, true where the
 * platform does it.
 *
 * @example
 * workspaceFeatures().mockServicesForPrivateCloud // true
 */
export function workspaceFeatures(): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const [name, flag] of FLAGS) {
    out[name] = typeof flag === 'boolean' ? flag : isOffered(flag.functionality)
  }
  return out
}

/** No limit (a count, a retention, an expiry). */
const UNLIMITED = -1

/**
 * The plan of a workspace: self-hosted, unmetered, no trial, no limits on what it does (mock
 * services, replicas, workspaces, functional tests), nothing of what it does not (load-test
 * credits, engines, threads, browsers). `createdAt`/`updatedAt` (epoch milliseconds) are the
 * workspace's.
 *
 * @example
 * workspacePlan(workspace).maxConcurrentMockServices // -1
 */
export function workspacePlan(w: Pick<Workspace, 'created' | 'updated'>) {
  return {
    id: 'understudy-self-hosted',
    name: 'Understudy (self-hosted)',
    type: 'self-hosted',
    totalCredits: 0,
    concurrency: 0,
    engines: 0,
    duration: 0,
    reportRetention: UNLIMITED,
    threadsPerEngine: 0,
    threadsPerMediumEngine: 0,
    maxWorkspaces: UNLIMITED,
    maxParallelTests: UNLIMITED,
    leftFunctional: UNLIMITED,
    quantityFunctional: UNLIMITED,
    maxConcurrentBrowsers: 0,
    maxConcurrentMockServices: UNLIMITED,
    mockServicesExpiration: UNLIMITED,
    mockServicesMaxReplicas: UNLIMITED,
    unlimitedTestingUpTo: 0,
    createdAt: w.created,
    updatedAt: w.updated,
    isMetered: false,
    isSandBox: false,
    isFreeTier: false,
    isTrial: false,
    multiLocation: false,
    trial: { end: null },
    paymentServiceType: 'none',
  }
}

/**
 * Billing: nothing is billed, so every documented field is present and empty: the address and
 * contact fields as '' (clients' models type them as strings and refuse null), and no payment
 * source (null: a source is an object where there is one).
 *
 * @example
 * workspaceBilling().companyName // ''
 */
export function workspaceBilling() {
  return {
    defaultPaymentSource: null,
    city: '',
    companyName: '',
    country: '',
    email: '',
    fullName: '',
    phoneNumber: '',
    postcode: '',
    street: '',
    vat: '',
  }
}

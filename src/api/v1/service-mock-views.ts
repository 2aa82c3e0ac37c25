import type { MockService, Service, Tracking } from '../../store/index.js'
import { epochSeconds, formattedDate, epochSecondsOrNull } from '../format.js'
import { LOCAL_HARBOR_ID, LOCAL_SHIP_ID } from '../local-location.js'
import { proxyView } from './mock-proxy.js'

/**
 * The mock service record of the mock services specification, docs/api.md#mock-services, every
 * field present: the asset-based and bridge fields Understudy has no use for are null, as the
 * spec's samples show them for transactional mock services.
 */
export function mockServiceView(
  m: MockService,
  service: Service | undefined,
  configurationId: number | null = null,
) {
  return {
    id: m.id,
    serviceId: m.serviceId,
    serviceName: service?.name ?? null,
    name: m.name,
    description: m.description,
    type: m.type,
    status: m.status,
    // Clients type these as strings: the local location when none was set
    harborId: m.harborId ?? LOCAL_HARBOR_ID,
    shipId: m.shipId ?? LOCAL_SHIP_ID,
    bridgeId: m.bridgeId,
    registryId: m.registryId,
    vseId: m.vseId,
    platformVseId: m.platformVseId,
    // the mock services specification types it as a string: HTTP (what the runtime serves) when
    // none was chosen
    endpointPreference: m.endpointPreference ?? 'HTTP',
    liveSystemHost: m.liveSystemHost,
    liveSystemPort: m.liveSystemPort,
    thinkTime: m.thinkTime,
    capacity: m.capacity,
    replicas: m.replicas,
    noMatchingRequestPreference: m.noMatchingRequestPreference,
    noMatchingRequestTxnId: m.noMatchingRequestTxnId,
    mockServiceTransactions: m.mockServiceTransactions.map((e) => ({
      priority: e.priority,
      txnId: e.txnId,
      destinations: [],
    })),
    httpEndpoint: m.httpEndpoint,
    httpsEndpoint: m.httpsEndpoint,
    svEndpoint: null,
    tags: m.tags,
    groupTag: m.groupTag,
    assetId: m.assetId,
    svMessage: null,
    registryUrl: null,
    svVseName: null,
    svVseId: null,
    marFileId: null,
    deployDate: epochSecondsOrNull(m.deployDate),
    exposedPorts:
      m.port === null
        ? []
        : [
            { port: m.port, type: 'HTTP', basePath: '/' },
            ...(m.tlsPort === null ? [] : [{ port: m.tlsPort, type: 'HTTPS', basePath: '/' }]),
          ],
    pendingUpdate: m.pendingUpdate,
    isNew: m.deployDate === null,
    executionMode: 'MOST_EFFICIENT',
    created: epochSeconds(m.created),
    updated: epochSeconds(m.updated),
    createdDate: formattedDate(m.created),
    updatedDate: formattedDate(m.updated),
    createdBy: m.createdBy,
    updatedBy: m.updatedBy,
    // --- fields existing clients of the product require ---
    httpRunnerEnabled: m.type !== 'SV',
    endpoints: [m.httpEndpoint, m.httpsEndpoint]
      .filter((e): e is string => e !== null)
      .map((endpoint) => ({ endpoint })),
    configurationId,
    proxy: proxyView(m.proxy),
    brokerConfig: null,
    assets: [],
    // --- dynamic responses: null when off ---
    cors: m.cors,
    faults: m.faults,
    templateSeed: m.templateSeed,
    matchHost: m.matchHost,
    validateRequests: false,
  }
}

/** The tracking object of the mock services specification: the result of deploy, configure and stop. */
export function trackingView(t: Tracking) {
  return {
    trackingId: t.trackingId,
    status: t.status,
    errors: t.errors,
    warnings: t.warnings,
    trackingUrl: `/api/v1/trackings/${t.trackingId}`,
    data: { dataType: 'SERVICE_MOCK', values: [t.mockServiceId] },
    action: t.action,
    created: epochSeconds(t.created),
    updated: epochSeconds(t.updated),
    createdBy: t.createdBy,
    updatedBy: t.createdBy,
    ended: epochSecondsOrNull(t.ended),
  }
}

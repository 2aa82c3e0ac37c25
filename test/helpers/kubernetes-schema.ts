import * as k8s from '@kubernetes/client-node'
import {
  ConfigMap,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1'
import { Deployment } from 'kubernetes-models/apps/v1'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1'
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1'

/*
 * Kubernetes objects checked against the Kubernetes schemas without a cluster. kubernetes-models
 * checks types, formats and required fields but lets unknown fields through (the API server would
 * drop them, or refuse them under strict field validation); so every field is also checked to be
 * one the API knows, by the models of @kubernetes/client-node, whose attribute maps are generated
 * from the same OpenAPI.
 */

const models: Record<string, new (data: never) => { validate: () => void }> = {
  ConfigMap,
  Secret,
  Service,
  ServiceAccount,
  PersistentVolumeClaim,
  Deployment,
  Ingress,
  Role,
  RoleBinding,
}

type AttributeMap = Array<{ baseName: string; type: string }>
const knownTypes = k8s as unknown as Record<
  string,
  { getAttributeTypeMap?: () => AttributeMap } | undefined
>

/**
 * JSON pointers of the fields of `value` that the Kubernetes type `type` (`V1Deployment`) does not have.
 *
 * @example
 * unknownFields({ spec: { replicaz: 1 } }, 'V1Deployment') // ['/spec/replicaz']
 */
export function unknownFields(value: unknown, type: string, at = ''): string[] {
  const item = /^Array<(.+)>$/.exec(type)?.[1]
  if (item !== undefined) {
    return Array.isArray(value)
      ? value.flatMap((v, i) => unknownFields(v, item, `${at}/${i}`))
      : [`${at} (not an array)`]
  }
  const attributes = knownTypes[type]?.getAttributeTypeMap?.()
  if (attributes === undefined || value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, v]) => {
    const attribute = attributes.find((a) => a.baseName === key)
    return attribute === undefined
      ? [`${at}/${key}`]
      : unknownFields(v, attribute.type, `${at}/${key}`)
  })
}

/**
 * The schema errors of an object of one of the kinds the driver and the charts make (throws for
 * another kind): kubernetes-models' message, then each unknown field; empty when it is valid.
 *
 * @example
 * expect(kubernetesSchemaErrors(deployment)).toEqual([])
 */
export function kubernetesSchemaErrors(object: { kind?: unknown }): string[] {
  const kind = String(object.kind)
  const Model = models[kind]
  if (Model === undefined) throw new Error(`no schema model for kind ${kind}`)
  const errors: string[] = []
  try {
    new (Model as new (data: unknown) => { validate: () => void })(object).validate()
  } catch (err) {
    errors.push((err as Error).message)
  }
  return [
    ...errors,
    ...unknownFields(object, `V1${kind}`).map((f) => `${f} is not a field of ${kind}`),
  ]
}

import {
  httpExchange,
  RELAY_ANSWER_LIMIT,
  relayable,
  type AdminAnswer,
  type RelayedCall,
} from '../deploy/index.js'
import type { MockRunner } from './work.js'

/** Longest time the agent gives its runtime for one relayed call, whatever the platform asks. */
const MAX_CALL_MS = 60_000

/**
 * Makes one admin call the platform relayed (deploy/admin-relay.ts) on this agent's own runtime,
 * and returns the runtime's answer as it came, for the platform to decode. The agent checks the
 * call again, whatever the platform checked: only paths of the runtime admin API the relay
 * allows, only for a mock service this agent runs and is meant to run. A call refused here, a
 * runtime that does not answer, or an answer over 16 MiB is a 503 whose message names this agent,
 * so that the platform's caller is told the runtime is unavailable, never given an empty answer.
 *
 * @example
 * const answer = await answerAdminCall(runner, (id) => state.applied[id]?.desired === 'RUNNING', 'ship-1', call)
 */
export async function answerAdminCall(
  runner: MockRunner,
  meantToRun: (mockServiceId: number) => boolean,
  shipId: string,
  call: RelayedCall,
): Promise<AdminAnswer> {
  if (!relayable(call.method, call.path)) {
    return unavailable(
      `agent ${shipId} refuses ${call.method} ${call.path}: not an admin call agents answer`,
    )
  }
  const admin = meantToRun(call.mockServiceId) ? await runner.admin(call.mockServiceId) : null
  if (admin === null) {
    return unavailable(`mock service ${call.mockServiceId} is not running on agent ${shipId}`)
  }
  const timeoutMs = Math.min(Math.max(call.timeoutMs, 1), MAX_CALL_MS)
  let answer: AdminAnswer
  try {
    const exchange = { method: call.method, path: call.path, json: call.json, timeoutMs }
    answer =
      admin.transport === undefined
        ? await httpExchange(admin, exchange)
        : await admin.transport(exchange)
  } catch (err) {
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : (err as Error).message
    return unavailable(
      `the runtime of mock service ${call.mockServiceId} on agent ${shipId} did not answer: ${reason}`,
    )
  }
  if (Buffer.byteLength(JSON.stringify(answer.body)) > RELAY_ANSWER_LIMIT) {
    return unavailable(
      `the runtime of mock service ${call.mockServiceId} on agent ${shipId} answered more than ${RELAY_ANSWER_LIMIT} bytes, the most an agent relays`,
    )
  }
  return answer
}

function unavailable(message: string): AdminAnswer {
  return { status: 503, body: { error: { code: 'ERR_API_UNAVAILABLE', message }, result: null } }
}

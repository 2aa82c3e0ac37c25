import { describe, expect, it } from 'vitest'
import { createError, fromWireError, toWireError } from '../../../src/errors/index.js'
import { trackingErrorOf } from '../../../src/deploy/managed.js'

describe('errors that cross a process boundary', () => {
  it('keeps a catalogue code with its message and details', () => {
    const sent = toWireError(
      createError('ERR_DSL_INVALID', ['1 error'], {
        details: [{ path: '/transactions/0/dsl', message: 'bad', line: 3, column: 5 }],
      }),
    )
    const received = fromWireError(JSON.parse(JSON.stringify(sent)), 'ERR_DEPLOY_FAILED')
    expect(received.code).toBe('ERR_DSL_INVALID')
    expect(received.statusCode).toBe(400)
    expect(received.details).toEqual([
      { path: '/transactions/0/dsl', message: 'bad', line: 3, column: 5 },
    ])
  })

  it('turns a code outside the catalogue (a Node.js code) into the fallback', () => {
    const received = fromWireError(
      { code: 'ERR_SOCKET_CLOSED', message: 'socket closed' },
      'ERR_DEPLOY_FAILED',
    )
    expect(received.code).toBe('ERR_DEPLOY_FAILED')
    expect(received.message).toBe('Deployment failed: socket closed')
  })

  it('turns garbage into the fallback and drops malformed details', () => {
    expect(fromWireError('nonsense').code).toBe('ERR_INTERNAL')
    expect(fromWireError(null, 'ERR_DEPLOY_FAILED').message).toBe(
      'Deployment failed: no reason given',
    )
    const mixed = fromWireError({
      code: 'ERR_DSL_INVALID',
      message: 'x',
      details: [{ path: 1 }, { path: '/a', message: 'm', line: 'x' }],
    })
    expect(mixed.details).toEqual([{ path: '/a', message: 'm' }])
  })

  it('sends nothing of a foreign error but ERR_INTERNAL', () => {
    expect(toWireError(new TypeError('secret internals'))).toEqual({
      code: 'ERR_INTERNAL',
      message: 'Internal error',
    })
  })

  it("keeps a thread's unexpected error as the cause of ERR_INTERNAL, never as its message", () => {
    const sent = toWireError(new TypeError('x is undefined'), { sameProcess: true })
    expect(sent).toEqual({ code: 'ERR_INTERNAL', message: 'x is undefined' })
    const received = fromWireError(sent)
    expect(received).toMatchObject({ code: 'ERR_INTERNAL', message: 'Internal error' })
    expect((received.cause as Error).message).toBe('x is undefined')
  })

  it('never lets a Node.js ERR_* code into a tracking error', () => {
    const nodeError = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ERR_SOCKET_CONNECTION_TIMEOUT',
    })
    expect(trackingErrorOf(nodeError).code).toBe('ERR_DEPLOY_FAILED')
    expect(trackingErrorOf(createError('ERR_DSL_INVALID', ['1 error'])).code).toBe(
      'ERR_DSL_INVALID',
    )
  })
})

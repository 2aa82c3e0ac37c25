import type { MatchRequest } from '../request.js'
import type { Predicate } from './predicate.js'

/** `credentials`: username and password must equal those of an `Authorization: Basic` header. */
export class CredentialsPredicate implements Predicate {
  readonly part = 'credentials' as const
  readonly key = ''
  readonly matcherName = 'equals'
  readonly expected: string

  constructor(
    private readonly username: string,
    private readonly password: string,
    readonly pointer: string,
  ) {
    // The password is never echoed into diagnoses or logs.
    this.expected = `${username}:***`
  }

  test(req: MatchRequest): boolean {
    const given = req.credentials()
    return given !== null && given.username === this.username && given.password === this.password
  }

  actual(req: MatchRequest): string | null {
    const given = req.credentials()
    return given === null ? null : `${given.username}:***`
  }
}

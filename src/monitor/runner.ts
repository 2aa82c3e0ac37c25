import type { RunInput, RunOptions, TestRunResult } from './types.js'

/** One run of a test (placeholder while the step runner lands). */
export class TestRunner {
  constructor (private readonly input: RunInput, private readonly options: RunOptions) {}

  async run (): Promise<TestRunResult> {
    const now = (this.options.now ?? Date.now)() / 1000
    return {
      test_run_id: this.input.testRunId,
      test_id: this.input.test.id,
      test_name: this.input.test.name,
      environment_id: this.input.environment.id,
      environment_name: this.input.environment.name,
      result: 'fail',
      started_at: now,
      finished_at: now,
      requests_executed: 0,
      assertions_defined: 0,
      assertions_passed: 0,
      assertions_failed: 0,
      variables_defined: 0,
      variables_passed: 0,
      variables_failed: 0,
      scripts_defined: 0,
      scripts_passed: 0,
      scripts_failed: 0,
      initial_variables: { ...this.input.environment.initial_variables, ...this.input.initialVariables },
      variables: {},
      scripts: [],
      requests: [],
      error: 'the runner is not implemented yet',
    }
  }
}

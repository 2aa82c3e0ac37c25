import type { RunInput, RunOptions, TestRunResult } from './types.js'
import { TestRunner } from './runner.js'

/**
 * Runs a test: the environment scripts, then every step in order (request, pause, condition,
 * subtest, external-ui-test), and answers the result in the product's shape. Never throws for
 * anything a test contains: failures are in the result.
 */
export async function runTest(input: RunInput, options: RunOptions = {}): Promise<TestRunResult> {
  return await new TestRunner(input, options).run()
}

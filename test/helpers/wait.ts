/**
 * Waits until `condition` holds, polling every `intervalMs`, and fails with `what` when it still
 * does not after `timeoutMs`. Tests wait for a state with this instead of sleeping a fixed time and
 * hoping the state was reached (slow machines made such sleeps flaky, fast ones made them prove
 * nothing).
 *
 * @example
 * await waitFor(() => app.runtime.inFlight() === 1, 'the request to be in flight')
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 5000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'

/** The niceness of background threads: the kernel then runs a busy process's serving thread first. */
export const BACKGROUND_NICE = 10

/**
 * Lowers the CPU priority of the calling thread (not of its process) to `nice`, where the system
 * allows it. A thread doing background work for a server (sending webhooks, preparing an import,
 * checkpointing the database) then takes the CPU its serving thread leaves idle: when both want
 * the same core, the kernel runs the one answering requests. Linux only (a thread's id comes
 * from /proc/thread-self, and setpriority applies to one thread there); elsewhere a no-op.
 * Lowering a priority needs no privilege. Returns whether it was lowered.
 *
 * @example
 * lowerThreadPriority() // in a worker thread
 */
export function lowerThreadPriority(nice = BACKGROUND_NICE): boolean {
  try {
    // '<pid>/task/<tid>'
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (!Number.isInteger(tid) || tid <= 0) return false
    setPriority(tid, nice)
    return true
  } catch {
    return false
  }
}

import { readFile } from 'node:fs/promises'

/**
 * Resident memory of a process in bytes, from `/proc/<pid>/status` (VmRSS); null where there is
 * no /proc (macOS, Windows) or the process is gone.
 *
 * @example
 * await residentBytes(process.pid) // 61440000 on Linux
 */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match === null ? null : Number(match[1]) * 1024
  } catch {
    return null
  }
}

import { workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { lowerThreadPriority } from '../../config/index.js'

// A PASSIVE checkpoint of one database file on a connection of its own (checkpointer.ts says why).
lowerThreadPriority()
const db = new Database((workerData as { file: string }).file, { fileMustExist: true })
try {
  db.pragma('busy_timeout = 5000')
  db.pragma('wal_checkpoint(PASSIVE)')
} finally {
  db.close()
}

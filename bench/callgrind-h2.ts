// The h2 driver of bench/callgrind.sh: POSTs on 2 sessions x 5 streams, WARM requests, then
// `callgrind_control -i on PID`, N requests on the same sessions (so no TLS handshake falls inside
// the measured window), `callgrind_control -d PID` and `-i off`.
//
//   npx tsx bench/callgrind-h2.ts URL PID WARM N BODY_FILE
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http2 from 'node:http2'

const [url, pid, warm, count, bodyFile] = process.argv.slice(2)
if (url === undefined || pid === undefined || bodyFile === undefined) {
  throw new Error('usage: callgrind-h2.ts URL PID WARM N BODY_FILE')
}
const body = readFileSync(bodyFile)
const headers = {
  ':method': 'POST',
  ':path': '/api/orders',
  'content-type': 'application/json',
  'content-length': body.length,
}
const sessions = await Promise.all(
  [0, 1].map(
    async () =>
      await new Promise<http2.ClientHttp2Session>((resolve, reject) => {
        const session = http2.connect(url, { rejectUnauthorized: false })
        session.once('connect', () => resolve(session))
        session.once('error', reject)
      }),
  ),
)
let failed = 0

async function one(session: http2.ClientHttp2Session): Promise<void> {
  await new Promise<void>((resolve) => {
    const stream = session.request(headers)
    stream.on('response', (h) => {
      if (h[':status'] !== 200) failed++
    })
    stream.resume()
    stream.on('close', resolve)
    stream.end(body)
  })
}

async function run(total: number): Promise<void> {
  let started = 0
  const lane = async (session: http2.ClientHttp2Session): Promise<void> => {
    while (started < total) {
      started++
      await one(session)
    }
  }
  await Promise.all(sessions.flatMap((s) => [lane(s), lane(s), lane(s), lane(s), lane(s)]))
}

await run(Number(warm))
execFileSync('callgrind_control', ['-i', 'on', pid])
await run(Number(count))
execFileSync('callgrind_control', ['-d', pid])
execFileSync('callgrind_control', ['-i', 'off', pid])
console.log(`requests ${count} failed ${failed}`)
for (const session of sessions) session.close()

// Writes what bench/callgrind.sh serves into DIR: the S2 document (ten transactions told apart
// by `$.shipping.kind`), the paths suite's document (one POST transaction), the S2 body, and a
// self-signed certificate and key.
//
//   npx tsx bench/callgrind-setup.ts DIR
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadTlsMaterial } from '../src/serve/tls.js'
import { scenarios } from './scenarios/index.js'
import { getAndPost, post } from './suites/paths.js'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: callgrind-setup.ts DIR')
const s2 = scenarios.find((s) => s.id === 'S2')
if (s2 === undefined) throw new Error('no S2 scenario')
writeFileSync(join(dir, 's2.json'), JSON.stringify(s2.document))
writeFileSync(join(dir, 'paths.json'), JSON.stringify(getAndPost))
writeFileSync(join(dir, 'body.json'), post.body ?? '')
const tls = await loadTlsMaterial(null, null)
writeFileSync(join(dir, 'cert.pem'), tls.cert)
writeFileSync(join(dir, 'key.pem'), tls.key)

// Preloaded (`node --import`) into a server by bench/alloc.ts: the first SIGUSR2 starts V8's
// sampling heap profiler, counting objects the young and old collections free as well (what a
// request allocates, not only what it keeps); the second stops it and writes the profile to
// ALLOC_OUT. An in-thread inspector session answers synchronously.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'

const session = new Session()
session.connect()
let sampling = false
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    })
    return
  }
  sampling = false
  session.post('HeapProfiler.stopSampling', (err, result) => {
    writeFileSync(
      process.env['ALLOC_OUT'] ?? 'alloc.heapprofile',
      JSON.stringify(err ?? result.profile),
    )
  })
})

#!/usr/bin/env node
// The executable: everything else lives in cli.ts, which tests import without side effects.
import { enableRegexFallback } from '../dsl/index.js'
import { main } from './cli.js'

// process-wide V8 flags that keep user regexes from stalling (docs/regex.md): set by the command,
// never by importing the library
enableRegexFallback()

const outcome = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
})
if (outcome !== 'running') process.exitCode = outcome

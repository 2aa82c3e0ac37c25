#!/usr/bin/env node
// The executable: everything else lives in cli.ts, which tests import without side effects.
import { main } from './cli.js'

const outcome = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
if (outcome !== 'running') process.exitCode = outcome

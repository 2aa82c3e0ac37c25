import { enableRegexFallback } from '../src/dsl/index.js'

// Tests run what the command runs: with V8's linear-time regex fallback on (src/cli/main.ts).
enableRegexFallback()

// ESLint 9 flat config: neostandard (the base of fastify, pino, undici) without style rules, since
// Prettier formats; the type-aware promise rules; and the area boundaries of
// docs/architecture.md, "Layout and boundaries".
import neostandard from 'neostandard'
import tseslint from 'typescript-eslint'

/**
 * Which areas each area may import (docs/architecture.md#layout-and-boundaries). The leaves `errors`, `log` and `config`
 * may be imported from anywhere (`net` by the areas that serve HTTP); nothing imports `cli` or `api`.
 */
const boundaries = {
  errors: [],
  log: ['errors'],
  config: ['errors'],
  // HTTP plumbing shared by the runtime and the control plane (bounded body reader, listen errors,
  // the egress policy of everything sent on a tenant's behalf)
  net: ['errors'],
  // the HTTP kit every server is built with (router, 404/405, JSON bodies and answers, static
  // files, live-update streams): below both the runtime and the control plane, so both may use it
  httpkit: ['net', 'errors'],
  dsl: ['errors', 'log', 'config'],
  match: ['dsl', 'errors', 'log', 'config'],
  inspect: ['dsl', 'errors', 'log', 'config'],
  serve: ['match', 'inspect', 'dsl', 'httpkit', 'net', 'errors', 'log', 'config'],
  store: ['dsl', 'errors', 'log', 'config'],
  // deploy fans a mock service's inspection in from its pods with inspect's merge functions
  deploy: ['store', 'inspect', 'dsl', 'httpkit', 'net', 'errors', 'log', 'config'],
  // monitor evaluates assertions with match's predicates, so one predicate language serves mocks and tests
  monitor: ['match', 'dsl', 'net', 'errors', 'log', 'config'],
  // the agent runs a ship's mock services with deploy's code and its monitoring runs with monitor's;
  // it reads the store's record types only (its records live in its memory and data dir)
  agent: ['deploy', 'monitor', 'store', 'dsl', 'net', 'errors', 'log', 'config'],
  // api also compiles transactions with match, to refuse at create time one that could never be served
  api: [
    'deploy',
    'store',
    'monitor',
    'inspect',
    'match',
    'dsl',
    'importers',
    'httpkit',
    'net',
    'errors',
    'log',
    'config',
  ],
}
// cli and library are the entry points (the command line, the package's library API): they may
// import any area (library loads files through cli/sources.ts and importers/), and no area imports them.
const srcAreas = [...Object.keys(boundaries), 'cli', 'library']

/**
 * Regex patterns (depth-agnostic, so files in nested folders such as src/api/v1 are covered) that
 * forbid reaching an area outside `allowed`, importers/, or another area's internals.
 */
function restrictionsFor(area, allowed) {
  const forbidden = srcAreas.filter((a) => a !== area && !allowed.includes(a))
  const patterns = []
  if (forbidden.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(${forbidden.join('|')})(/|$)`,
      message: `src/${area} may import only ${allowed.join(', ') || 'nothing from src/'} (docs/architecture.md#layout-and-boundaries).`,
    })
  }
  if (area !== 'api') {
    patterns.push({
      regex: '^(\\.\\./)+importers(/|$)',
      message: `src/${area} may not import importers/ (only cli and api may: docs/architecture.md#layout-and-boundaries).`,
    })
  }
  if (allowed.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(${allowed.join('|')})/(?!index\\.js$)`,
      message:
        'Import another area only through its index.ts (docs/architecture.md#layout-and-boundaries).',
    })
  }
  return patterns
}

const boundaryBlocks = Object.entries(boundaries).map(([area, allowed]) => ({
  files: [`src/${area}/**/*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: restrictionsFor(area, allowed) }] },
}))

export default [
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'bench/results/**', '.scratch/**'] },
  ...neostandard({ ts: true, noStyle: true }),
  {
    // ui/ (the dashboard, TSX) is checked with the same type-aware rules, against ui/tsconfig.json.
    files: ['**/*.ts', 'ui/**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  ...boundaryBlocks,
  {
    // The first toLocaleString of a process reads ICU's locale and number data: about 6 MiB of
    // the node binary's pages kept resident by every runtime, for one message.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='toLocaleString']",
          message:
            'Write counts with formatCount (src/errors): toLocaleString costs ICU data in RSS.',
        },
      ],
    },
  },
  {
    files: ['importers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!(dsl|errors|log|config)/index\\.js$)',
              message:
                'importers/ import only src/dsl and the leaves, through their index.ts (docs/architecture.md#layout-and-boundaries).',
            },
          ],
        },
      ],
    },
  },
]

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/*
 * The import graph of src/, read with the TypeScript compiler, and two rules about its shape
 * (docs/architecture.md, "Layout and boundaries"):
 *
 * - no circle of files: no module reaches itself through the imports that exist at run time;
 * - no import running back up inside src/api: a module in a sub-folder S of src/api never imports
 *   a module M of an enclosing folder P when M, directly or through other modules, imports S (or a
 *   folder below S). S and P would then need each other: a circle between the two folders, even
 *   where no circle of files exists. A module of P that reaches nothing below it (validation.ts,
 *   paging.ts...) is one of P's shared leaves, and importing it from below is not running back up.
 *
 * Only imports that exist at run time count: `import type` and `export type ... from` are erased by
 * the compiler and order nothing (the shared type declarations of src/api/http/types.ts name every
 * area's types). `import { type A }` stays in the JavaScript (verbatimModuleSyntax) and counts.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const src = join(root, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/**
 * The relative specifiers a module imports at run time (static imports, re-exports and `import()`),
 * or, with `types`, every one it names, type-only imports included (what a drawing tool shows).
 */
function runtimeSpecifiers(file: string, types = false): string[] {
  const text = readFileSync(file, 'utf8')
  const sourceFile = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.ES2022,
    false,
    ts.ScriptKind.TS,
  )
  const specifiers: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (types || node.importClause?.isTypeOnly !== true) {
        specifiers.push(node.moduleSpecifier.text)
      }
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (types || !node.isTypeOnly) specifiers.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments
      if (arg !== undefined && ts.isStringLiteral(arg)) specifiers.push(arg.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(sourceFile)
  return specifiers.filter((s) => s.startsWith('.'))
}

/** Every module of src/ (path relative to the repository, with `/`) and the modules of src/ it imports at run time. */
function importGraph(types = false): Map<string, string[]> {
  const name = (path: string) => relative(root, path).split(sep).join('/')
  const graph = new Map<string, string[]>()
  for (const file of sourceFiles(src)) {
    const targets = runtimeSpecifiers(file, types)
      .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')))
      .filter((target) => target.startsWith(src + sep))
    graph.set(name(file), targets.map(name))
  }
  return graph
}

/** The circles of the graph: its strongly connected components of more than one module (or a module importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const connect = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string | undefined
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) connect(v)
  return found
}

/** The modules `from` reaches through its imports, itself excluded unless it is on a circle. */
function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>()
  const pending = [...(graph.get(from) ?? [])]
  for (let m = pending.pop(); m !== undefined; m = pending.pop()) {
    if (seen.has(m)) continue
    seen.add(m)
    pending.push(...(graph.get(m) ?? []))
  }
  return seen
}

const folderOf = (module: string) => module.slice(0, module.lastIndexOf('/'))
const isWithin = (module: string, folder: string) => module.startsWith(folder + '/')

/** The imports running back up inside src/api, as `importer -> imported (which reaches back into the importer's folder)`. */
function importsRunningBackUp(graph: Map<string, string[]>): string[] {
  const found: string[] = []
  for (const [module, imports] of graph) {
    if (!isWithin(module, 'src/api')) continue
    const folder = folderOf(module)
    for (const imported of imports) {
      const parent = folderOf(imported)
      // only imports of a module in an enclosing folder, within src/api
      if (!(parent === 'src/api' || isWithin(parent, 'src/api')) || !isWithin(folder, parent)) {
        continue
      }
      // the sub-folder of `parent` that holds the importer: the imported module must not reach into it
      const child = parent + '/' + folder.slice(parent.length + 1).split('/')[0]
      const into = [...reachable(graph, imported)].find((m) => isWithin(m, child))
      if (into !== undefined) found.push(`${module} -> ${imported} (which imports ${into})`)
    }
  }
  return found.sort()
}

describe('the import graph of src/', () => {
  const graph = importGraph()

  it('reads every module and its imports', () => {
    expect(graph.size).toBeGreaterThan(100)
    expect(graph.get('src/api/routes.ts')).toContain('src/api/v1/services.ts')
    // type-only imports are left out (`import type { ImportWorkerRequest } from './worker.js'`),
    // value imports kept (also `import { type ImportJob, runImportJob } from './jobs.js'`)
    const offThread = graph.get('src/api/v1/upload/off-thread.ts')
    expect(offThread).toContain('src/api/v1/upload/jobs.ts')
    expect(offThread).not.toContain('src/api/v1/upload/worker.ts')
  })

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([])
  })

  it('has no circle of files even counting type-only imports (as a tool that draws imports sees them)', () => {
    expect(circles(importGraph(true))).toEqual([])
  })

  it('has no import running back up inside src/api', () => {
    expect(importsRunningBackUp(graph)).toEqual([])
  })

  it('finds a circle and an import running back up when there is one', () => {
    const made = new Map<string, string[]>([
      ['src/api/a.ts', ['src/api/v9/b.ts']],
      ['src/api/v9/b.ts', ['src/api/c.ts']],
      ['src/api/c.ts', ['src/api/a.ts']],
      ['src/api/leaf.ts', []],
      ['src/api/v9/d.ts', ['src/api/leaf.ts']],
    ])
    expect(circles(made)).toEqual([['src/api/a.ts', 'src/api/c.ts', 'src/api/v9/b.ts']])
    expect(importsRunningBackUp(made)).toEqual([
      'src/api/v9/b.ts -> src/api/c.ts (which imports src/api/v9/b.ts)',
    ])
  })
})

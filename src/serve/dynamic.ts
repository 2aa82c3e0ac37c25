import type { MockServiceDocument, Transaction } from '../dsl/index.js'
import type { MatchRequest, ReportProblem, Predicate } from '../match/index.js'
import { compilePathParams, templateContext } from './template/context.js'
import type { ContextFields } from './template/reads.js'
import type { CompiledResponse } from './compile-response.js'
import { compileFault, type CompiledFault } from './fault.js'
import { compilePostServe, type CompiledPostServe } from './post-serve.js'
import { compileScenario, type CompiledScenario } from './scenario/compile.js'
import type { ScenarioStates } from './scenario/store.js'
import { createTemplateEngine, type TemplateEngine } from './template/engine.js'
import { compileTemplatedResponse, type TemplatedResponse } from './template/response.js'

/**
 * What a transaction does beyond a fixed answer. Decided once at compile time: a static
 * transaction gets null and keeps the runtime's fixed-answer path untouched.
 */
export interface DynamicFeatures {
  readonly template: TemplatedResponse | null
  readonly scenario: CompiledScenario | null
  readonly fault: CompiledFault | null
  readonly postServe: CompiledPostServe | null
  /** The template context of a request (the `request.*` fields `fields` names, path variables included), plus `extra`. */
  readonly context: (
    req: MatchRequest,
    rawHeaders: readonly string[],
    fields: ContextFields,
    extra?: Record<string, unknown>,
  ) => Record<string, unknown>
}

/** Builds the dynamic features of a mock service's transactions; one template engine per mock service. */
export class DynamicCompiler {
  private engine: TemplateEngine | null = null
  /** Scenario predicates by transaction, handed to the matcher after the payload is built. */
  readonly predicates = new Map<Transaction, Predicate>()
  /** Transactions with a `scenario`: a cluster replica commits their matches through the primary. */
  scenarioCount = 0

  // Only the settings it reads: compiled features must not keep the whole document alive.
  private readonly templateSeed: MockServiceDocument['templateSeed']
  private readonly faults: MockServiceDocument['faults']

  constructor(
    doc: MockServiceDocument,
    private readonly scenarios: ScenarioStates,
  ) {
    this.templateSeed = doc.templateSeed
    this.faults = doc.faults
  }

  private templates(): TemplateEngine {
    this.engine ??= createTemplateEngine(this.templateSeed)
    return this.engine
  }

  /** The features of one transaction, or null for a static one. */
  compile(txn: Transaction, base: CompiledResponse, report: ReportProblem): DynamicFeatures | null {
    const dsl = txn.dsl.responseDsl
    const fault = compileFault(dsl.fault ?? this.faults)
    const spec = txn.dsl.scenario
    if (
      dsl.template !== true &&
      spec === undefined &&
      fault === null &&
      dsl.postServe === undefined
    ) {
      return null
    }
    let scenario: CompiledScenario | null = null
    if (spec !== undefined) {
      this.scenarioCount++
      try {
        scenario = compileScenario(spec, this.scenarios)
        if (scenario.predicate !== null) this.predicates.set(txn, scenario.predicate)
      } catch (err) {
        report('/dsl/scenario/instanceKey/key', err instanceof Error ? err.message : String(err))
      }
    }
    const url = txn.dsl.requestDsl.url
    const pathTemplate = url?.matcherName === 'equals_url' ? url.matchingValue : undefined
    const params = compilePathParams(pathTemplate)
    return {
      context: (req, rawHeaders, fields, extra) =>
        templateContext(req, rawHeaders, params, fields, extra),
      template:
        dsl.template === true
          ? compileTemplatedResponse(dsl, base, this.templates(), pathTemplate, report)
          : null,
      scenario,
      fault,
      postServe: compilePostServe(dsl.postServe, this.templates(), report),
    }
  }
}

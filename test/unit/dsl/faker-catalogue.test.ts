import { Faker, en } from '@faker-js/faker'
import { describe, expect, it } from 'vitest'
import {
  checkFakerArguments,
  fakerMethodOf,
  fakerMethods,
  TemplateBoundError,
} from '../../../src/dsl/index.js'
import { unknownArgument } from '../../../src/dsl/faker-catalogue.js'
import { createTemplateEngine } from '../../../src/serve/template/engine.js'

describe('the faker catalogue of templates', () => {
  const faker = new Faker({ locale: [en] }) as unknown as Record<string, Record<string, unknown>>

  it('names only methods that exist on faker (a faker upgrade that drops one fails here)', () => {
    const missing = [...fakerMethods.keys()].filter((path) => {
      const [module = '', method = ''] = path.split('.')
      return typeof faker[module]?.[method] !== 'function'
    })
    expect(missing).toEqual([])
  })

  it('leaves out what takes functions or objects and everything that is not a module method', () => {
    for (const path of [
      'constructor.constructor',
      'person.faker',
      'person.constructor',
      'helpers.multiple',
      'helpers.maybe',
      'helpers.uniqueArray',
      'helpers.mustache',
      'helpers.objectValue',
      'definitions.person',
      'rawDefinitions.person',
      'seed',
      '__proto__.constructor',
    ]) {
      expect(() => fakerMethodOf(path), path).toThrow(/faker has no method/)
    }
  })

  it('turns numeric text given as a size into its number and bounds it', () => {
    expect(checkFakerArguments(fakerMethodOf('string.alpha'), ['8'], null)).toEqual([8])
    expect(() => checkFakerArguments(fakerMethodOf('string.alpha'), ['65537'], null)).toThrow(
      TemplateBoundError,
    )
    expect(() => checkFakerArguments(fakerMethodOf('lorem.paragraphs'), [1001], null)).toThrow(
      TemplateBoundError,
    )
    expect(() =>
      checkFakerArguments(fakerMethodOf('lorem.words'), [], { min: 1, max: 1001 }),
    ).toThrow(TemplateBoundError)
    expect(() =>
      checkFakerArguments(fakerMethodOf('lorem.sentences'), [3, 'x'.repeat(1001)], null),
    ).toThrow(TemplateBoundError)
    // A number that is a value, not a size, is not bounded.
    expect(checkFakerArguments(fakerMethodOf('number.int'), [], { min: 0, max: 1e12 })).toEqual([
      { min: 0, max: 1e12 },
    ])
  })

  it('refuses a name that is not text, and arguments that are objects or lists of them', () => {
    expect(() => fakerMethodOf(7)).toThrow("needs a name like 'person.firstName'")
    const pick = fakerMethodOf('helpers.arrayElement')
    expect(checkFakerArguments(pick, [['a', 1, true, null]], null)).toEqual([['a', 1, true, null]])
    expect(() => checkFakerArguments(pick, [[{ a: 1 }]], null)).toThrow(
      'a list may hold only text and numbers',
    )
    expect(() => checkFakerArguments(pick, [{ a: 1 }], null)).toThrow('not an object')
    expect(() => checkFakerArguments(pick, [() => 1], null)).toThrow('not function')
    expect(() => checkFakerArguments(pick, [new Array(1001).fill('a')], null)).toThrow(
      TemplateBoundError,
    )
    expect(() => checkFakerArguments(pick, [['x'.repeat(1001)]], null)).toThrow(TemplateBoundError)
  })

  it('skips the arguments known only when the template renders', () => {
    const alpha = fakerMethodOf('string.alpha')
    expect(checkFakerArguments(alpha, [unknownArgument], { length: unknownArgument })).toEqual([
      unknownArgument,
      {},
    ])
  })

  it('checks the tokens of a helpers.fake pattern', () => {
    const fake = fakerMethodOf('helpers.fake')
    expect(checkFakerArguments(fake, ['{{person.firstName}} {{ person.lastName }}'], null)).toEqual(
      ['{{person.firstName}} {{ person.lastName }}'],
    )
    expect(() => checkFakerArguments(fake, [7], null)).toThrow(
      'needs a text with {{module.method}}',
    )
    expect(() => checkFakerArguments(fake, ['{{person.nobody}}'], null)).toThrow(
      'is not a faker method a template may call',
    )
    expect(() => checkFakerArguments(fake, ['{{helpers.slugify}}'], null)).toThrow(
      'is not a faker method a template may call',
    )
    expect(() => checkFakerArguments(fake, ['{{string.alpha(5)}}'], null)).toThrow(
      'tokens are {{module.method}}, without arguments',
    )
  })

  it('renders every catalogue method without arguments except the few that need one', () => {
    const engine = createTemplateEngine(7)
    const needsArgument = new Set([
      'date.between',
      'date.betweens',
      'helpers.slugify',
      'helpers.replaceSymbols',
      'helpers.replaceCreditCardSymbols',
      'helpers.fromRegExp',
      'helpers.shuffle',
      'helpers.arrayElement',
      'helpers.arrayElements',
      'helpers.rangeToNumber',
      'helpers.fake',
      'string.fromCharacters',
    ])
    const failed: string[] = []
    for (const path of fakerMethods.keys()) {
      if (needsArgument.has(path)) continue
      try {
        engine.compile(`{{faker '${path}'}}`)({})
      } catch (err) {
        failed.push(`${path}: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
    expect(failed).toEqual([])
  })
})

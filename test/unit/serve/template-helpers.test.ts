import { describe, expect, it } from 'vitest'
import { applyOffset, formatDate, parseDate } from '../../../src/serve/template/dates.js'
import { createTemplateEngine } from '../../../src/serve/template/engine.js'

// The response template helpers one by one: what each answers, and the message of each refusal
// (a template that asks the impossible fails with a reason, never with a wrong answer).
const engine = createTemplateEngine(1)
const context = {
  request: {
    body: '{"a":{"b":[1,2]},"n":null}',
    list: ['a', 'b'],
    obj: { k: 1, j: 2 },
  },
}
const render = (source: string): string => engine.compile(source)(context)
const failure = (source: string): string => {
  try {
    render(source)
  } catch (err) {
    return (err as Error).message
  }
  throw new Error(`expected ${source} to fail`)
}

describe('template helpers', () => {
  it('does arithmetic, refusing division by zero, unknown operators and what is not a number', () => {
    expect(render("{{math 7 '-' 2}} {{math 3 '*' 4}} {{math 7 '%' 3}} {{math 1 '/' 4}}")).toBe(
      '5 12 1 0.25',
    )
    expect(failure("{{math 1 '/' 0}}")).toContain('division by zero')
    expect(failure("{{math 1 '%' 0}}")).toContain('division by zero')
    expect(failure("{{math 1 '^' 2}}")).toContain('unknown operator "^" (one of + - * / %)')
    expect(failure("{{math 'x' '+' 1}}")).toContain('"x" is not a number')
  })

  it('encodes and decodes base64 and URLs, of an argument or of a block', () => {
    expect(render("{{base64 'aGk=' decode=true}} {{#base64}}block{{/base64}}")).toBe('hi YmxvY2s=')
    expect(
      render(
        "{{urlEncode 'a b/c'}} {{urlEncode 'a%20b' decode=true}} {{#urlEncode}}x y{{/urlEncode}}",
      ),
    ).toBe('a%20b%2Fc a b x%20y')
  })

  it('measures lists, objects and text, and joins lists or a single value', () => {
    expect(render("{{size request.list}} {{size request.obj}} {{size 'abc'}} {{size 5}}")).toBe(
      '2 2 3 0',
    )
    expect(render("{{join request.list}} {{join 'solo' '-'}}")).toBe('a,b solo')
  })

  it('writes values as JSON, null when there is none', () => {
    expect(render('{{toJson request.obj}} {{toJson}} {{toJson request.list}}')).toBe(
      '{"k":1,"j":2} null ["a","b"]',
    )
  })

  it('selects from a JSON body, writing objects as JSON and nothing for null or an empty body', () => {
    expect(
      render(
        "[{{jsonPath request.body '$.a'}}][{{jsonPath request.body '$.n'}}][{{jsonPath '' '$.a'}}]",
      ),
    ).toBe('[{"b":[1,2]}][][]')
    expect(failure('{{jsonPath request.body 5}}')).toContain('needs a JSONPath expression')
    expect(render("{{xPath '<a><b>1</b></a>' '/a/b/text()'}}")).toBe('1')
    expect(failure("{{xPath '<a/>' 5}}")).toContain('needs an XPath expression')
  })

  it('draws random values of the asked type, length and range, refusing impossible ones', () => {
    expect(render("{{randomValue length=5 type='NUMERIC'}}")).toMatch(/^\d{5}$/)
    expect(render("{{randomValue type='uuid'}}")).toMatch(/^[0-9a-f-]{36}$/)
    expect(render("{{randomValue length=3 type='ALPHABETIC' uppercase=true}}")).toMatch(
      /^[A-Z]{3}$/,
    )
    expect(failure("{{randomValue type='weird'}}")).toContain('unknown type "WEIRD"')
    expect(failure('{{randomValue length=-1}}')).toContain(
      'length must be a whole number, 0 or more',
    )
    expect(render('{{randomInt lower=5 upper=5}} {{randomDecimal lower=2 upper=2}}')).toBe('5 2')
    expect(failure('{{randomInt lower=5 upper=1}}')).toContain('upper is below lower')
  })

  it('parses and formats dates, refusing what is not one', () => {
    expect(render("{{parseDate '2021-03-04T05:06:07Z'}}")).toBe('2021-03-04T05:06:07.000Z')
    expect(failure("{{parseDate 'not a date'}}")).toContain('"not a date" is not a date')
    expect(
      render(
        "{{dateFormat '2021-03-04T05:06:07Z' 'yyyy-MM-dd'}} {{dateFormat '2021-03-04T05:06:07Z' format='yyyy' offset='1 years'}}",
      ),
    ).toBe('2021-03-04 2022')
  })

  it('writes nothing for log, and chooses blocks by comparison', () => {
    expect(render("[{{log 'x'}}]")).toBe('[]')
    expect(render('{{#eq 1 1}}a{{else}}b{{/eq}}{{#ne 1 1}}c{{else}}d{{/ne}}')).toBe('ad')
    expect(render("{{#contains request.list 'a'}}has{{/contains}}")).toBe('has')
  })
})

describe('template dates', () => {
  const date = new Date('2021-03-04T15:06:07.089Z')

  it('formats every field letter, literal text and quotes', () => {
    expect(formatDate(date, "yy-MMM d H h hh m s S SSS E a Z 'at' ''")).toBe(
      "21-Mar 4 15 3 03 6 7 0 089 Thu PM +0000 at '",
    )
    expect(formatDate(date, 'epoch')).toBe('1614870367089')
    expect(formatDate(date, 'unix')).toBe('1614870367')
    expect(formatDate(date, '')).toBe('2021-03-04T15:06:07.089Z')
  })

  it('refuses a date out of range', () => {
    expect(() => formatDate(new Date(8.64e15 + 1), 'yyyy')).toThrow('the date is out of range')
  })

  it('moves a date by every unit, months and years by the calendar', () => {
    const moved = (offset: string) => applyOffset(date, offset).toISOString()
    expect(moved('1 months')).toBe('2021-04-04T15:06:07.089Z')
    expect(moved('-2 years')).toBe('2019-03-04T15:06:07.089Z')
    expect(moved('1 weeks')).toBe('2021-03-11T15:06:07.089Z')
    expect(moved('-5 minutes')).toBe('2021-03-04T15:01:07.089Z')
    expect(moved('10 milliseconds')).toBe('2021-03-04T15:06:07.099Z')
  })

  it('refuses an offset that is not a number and a unit, or whose unit it does not know', () => {
    expect(() => applyOffset(date, 'soon')).toThrow(
      'offset "soon" is not like "3 days" or "-1 hours"',
    )
    expect(() => applyOffset(date, '1 fortnights')).toThrow('unknown offset unit "fortnights"')
  })

  it('reads a date, epoch milliseconds as a number or as digits, and a day', () => {
    expect(parseDate(date)).toBe(date)
    expect(parseDate(1614870367089).toISOString()).toBe('2021-03-04T15:06:07.089Z')
    expect(parseDate('1614870367089').toISOString()).toBe('2021-03-04T15:06:07.089Z')
    expect(parseDate('2021-03-04').toISOString()).toBe('2021-03-04T00:00:00.000Z')
  })
})

import { describe, expect, it } from 'vitest'
import { translateTemplate } from '../../../importers/mockoon/template.js'

// Mockoon's request helpers become the DSL's request context; what cannot be translated is named.
describe('translateTemplate (Mockoon templates)', () => {
  it('leaves a helper name without arguments as the variable Handlebars reads it as', () => {
    for (const name of ['urlParam', 'header', 'cookie']) {
      expect(translateTemplate(`{{${name}}}`)).toEqual({ template: `{{${name}}}` })
    }
  })

  it('leaves text without mustaches as a literal', () => {
    expect(translateTemplate('plain {text}')).toEqual({ literal: true })
  })

  it.each([
    ["{{urlParam 'id'}}", '{{request.path.[id]}}'],
    ["{{queryParam 'page'}}", '{{request.query.[page]}}'],
    ["{{queryParam 'filter.kind'}}", '{{request.query.[filter].[kind]}}'],
    ['{{queryParam}}', '{{toJson request.query}}'],
    ["{{header 'X-Request-Id'}}", '{{request.headers.[x-request-id]}}'],
    ["{{cookie 'session'}}", '{{request.cookies.[session]}}'],
    ['{{body}}', '{{request.body}}'],
    ["{{body 'items.0.name'}}", "{{jsonPath request.body '$.items[0].name'}}"],
    ["{{body 'a.weird key'}}", `{{jsonPath request.body '$.a["weird key"]'}}`],
    ["{{bodyRaw '$.a.b'}}", "{{jsonPath request.body '$.a.b'}}"],
    ['{{method}}', '{{request.method}}'],
    ['{{now}}', '{{now}}'],
    ["{{now 'YYYY-MM-DD'}}", "{{now format='YYYY-MM-DD'}}"],
  ])('translates %s', (source, template) => {
    expect(translateTemplate(source)).toEqual({ template })
  })

  it('turns a fallback argument into an if/else', () => {
    expect(translateTemplate("{{queryParam 'page' '1'}}")).toEqual({
      template: '{{#if request.query.[page]}}{{request.query.[page]}}{{else}}1{{/if}}',
    })
    expect(translateTemplate("{{body 'a.b' 'none'}}")).toEqual({
      template:
        "{{#if (jsonPath request.body '$.a.b')}}{{jsonPath request.body '$.a.b'}}{{else}}none{{/if}}",
    })
  })

  it('rewrites calls inside subexpressions and keeps the text around them', () => {
    expect(translateTemplate("id:\n  {{#if (urlParam 'id')}}yes{{/if}} {{method}}")).toEqual({
      template: 'id:\n  {{#if request.path.[id]}}yes{{/if}} {{request.method}}',
    })
  })

  it('names the helpers it could not translate, and an unparsable template', () => {
    expect(translateTemplate('{{mockoonOnly 1}}')).toEqual({ untranslated: ['mockoonOnly'] })
    // Calls it does not rewrite (hash options, an argument that is not a literal, a method with
    // an argument) stay as written, and the runtime has no such helper.
    expect(translateTemplate('{{urlParam (header)}}')).toEqual({ untranslated: ['urlParam'] })
    expect(translateTemplate("{{urlParam 'id' x=1}}")).toEqual({ untranslated: ['urlParam'] })
    expect(translateTemplate('{{urlParam someVariable}}')).toEqual({ untranslated: ['urlParam'] })
    expect(translateTemplate("{{method 'x'}}")).toEqual({ untranslated: ['method'] })
    expect(translateTemplate('{{#if}}')).toEqual({
      untranslated: ['(the template does not parse)'],
    })
  })
})

import { describe, expect, it } from 'vitest'
import { TemplateRoutes } from '../../../src/match/template-routes.js'

describe('TemplateRoutes', () => {
  it('finds a template by segments, placeholders matching one non-empty segment', () => {
    const routes = new TemplateRoutes<string>()
    routes.add('/pets/{id}', 'pet')
    routes.add('/pets/{id}/toys/{toyId}', 'toy')
    expect(routes.find('/pets/7')).toBe('pet')
    expect(routes.find('/pets/7/toys/a')).toBe('toy')
    expect(routes.find('/pets')).toBeNull()
    expect(routes.find('/pets/7/toys')).toBeNull()
    expect(routes.find('/pets/7/toys/a/b')).toBeNull()
  })

  it('treats templates that differ only in placeholder names as one route', () => {
    const routes = new TemplateRoutes<string>()
    routes.add('/pets/{id}', 'first')
    routes.add('/pets/{petId}', 'second')
    expect(routes.find('/pets/1')).toBe('second')
  })

  it('matches placeholders inside a segment with the text around them, never empty', () => {
    const routes = new TemplateRoutes<string>()
    routes.add('/files/{name}.json', 'json')
    routes.add('/files/{a}-{b}.tar.gz', 'tar')
    expect(routes.find('/files/report.json')).toBe('json')
    expect(routes.find('/files/x-y.tar.gz')).toBe('tar')
    expect(routes.find('/files/.json')).toBeNull()
    expect(routes.find('/files/reportxjson')).toBeNull()
  })

  it('prefers a literal segment and backtracks to a placeholder when the literal branch ends', () => {
    const routes = new TemplateRoutes<string>()
    routes.add('/a/b/{x}/c', 'literal-b')
    routes.add('/a/{y}/d', 'param')
    expect(routes.find('/a/b/1/c')).toBe('literal-b')
    expect(routes.find('/a/b/d')).toBe('param')
    expect(routes.find('/a/z/d')).toBe('param')
  })

  it('compares literal segments exactly, including characters a router would treat specially', () => {
    const routes = new TemplateRoutes<string>()
    routes.add('/q/a?b/{id}', 'q')
    routes.add('/Case/{id}', 'case')
    expect(routes.find('/q/a?b/1')).toBe('q')
    expect(routes.find('/case/1')).toBeNull()
    expect(routes.find('/Case/1')).toBe('case')
  })
})

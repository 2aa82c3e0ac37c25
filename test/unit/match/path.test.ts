import { describe, expect, it } from 'vitest'
import {
  isTemplate,
  normalizePath,
  normalizeTemplate,
  routerKeyOf,
  routerPatternOf,
  templateRegex,
} from '../../../src/match/path.js'

describe('normalizePath', () => {
  it.each([
    ['/pets', '/pets'],
    ['/pets/', '/pets'],
    ['/pets//1/', '/pets/1'],
    ['//', '/'],
    ['/', '/'],
    ['', '/'],
    ['pets', '/pets'],
    ['/a%20b', '/a b'],
    ['/a%2Fb', '/a/b'],
    ['/a%2F%2Fb', '/a/b'],
    ['/a%zz', '/a%zz'],
    ['/a%20b//c', '/a b/c'],
    ['/a%zz//c', '/a%zz/c'],
    ['/a/%2Fb', '/a/b'],
    ['/caf%C3%A9', '/café'],
  ])('turns %j into %j', (raw, normalized) => {
    expect(normalizePath(raw)).toBe(normalized)
  })

  it('drops only one trailing slash after collapsing', () => {
    expect(normalizePath('/a///')).toBe('/a')
  })

  it('returns the same string when nothing needs normalizing', () => {
    const raw = '/pets/1'
    expect(normalizePath(raw)).toBe(raw)
  })
})

describe('templates', () => {
  it('recognizes {name} placeholders, whole or partial segments', () => {
    expect(isTemplate('/pets/{id}')).toBe(true)
    expect(isTemplate('/files/{name}.json')).toBe(true)
    expect(isTemplate('/pets/{}')).toBe(false)
    expect(isTemplate('/pets/1')).toBe(false)
    // repeated calls do not depend on a global regex's lastIndex
    expect(isTemplate('/pets/{id}')).toBe(true)
  })

  it('normalizes a template like a path, without its query, keeping placeholders', () => {
    expect(normalizeTemplate('/pets//{id}/?x=1')).toBe('/pets/{id}')
  })

  it('gives templates of one shape the same router pattern', () => {
    expect(routerPatternOf('/pets/{id}/toys/{toyId}')).toBe('/pets/:p0/toys/:p1')
    expect(routerPatternOf('/pets/{petId}/toys/{x}')).toBe('/pets/:p0/toys/:p1')
    expect(routerPatternOf('/files/{name}.json')).toBe('/files/:p0.json')
  })

  it('gives no router pattern to a template with characters find-my-way treats specially', () => {
    expect(routerPatternOf('/v1:batch/{id}')).toBeNull()
    expect(routerPatternOf('/a*/{id}')).toBeNull()
    expect(routerPatternOf('/a(b)/{id}')).toBeNull()
  })

  it('turns a template into a regex matching one non-empty segment per placeholder', () => {
    const re = templateRegex('/files/{name}.json')
    expect(re.test('/files/a.json')).toBe(true)
    expect(re.test('/files/.json')).toBe(false)
    expect(re.test('/files/a/b.json')).toBe(false)
    expect(re.test('/files/aXjson')).toBe(false)
  })

  it('escapes % ? # ; for the router and leaves other paths alone', () => {
    expect(routerKeyOf('/tags/c#?;%')).toBe('/tags/c%23%3F%3B%25')
    const plain = '/pets/1'
    expect(routerKeyOf(plain)).toBe(plain)
  })
})

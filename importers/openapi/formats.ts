/**
 * Fixed sample values for the string formats of OpenAPI and JSON Schema: deterministic, valid
 * for ajv-formats, and recognisable as samples (RFC 2606 / RFC 5737 / RFC 3849 addresses).
 */
export const formatSamples: Readonly<Record<string, string>> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com',
  url: 'https://example.com',
  iri: 'https://example.com',
  'uri-reference': 'https://example.com',
  'iri-reference': 'https://example.com',
  'uri-template': 'https://example.com/{id}',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  byte: 'c3RyaW5n',
  binary: 'string',
  password: 'string',
  regex: '^[a-z]+$',
  'json-pointer': '/example',
  'relative-json-pointer': '0',
  int32: '0',
  int64: '0',
  float: '0',
  double: '0',
  decimal: '0',
}

/**
 * A monitoring API token the documented way (docs/monitor-api.md): `POST /apps` with the platform
 * API key answers an application and its creator's personal access token (every scope).
 *
 * @example
 * const authorization = await monitoringToken(platform.url, `Basic ${base64(id + ':' + secret)}`)
 * await fetch(`${platform.url}/buckets`, { headers: { authorization } })
 */
export async function monitoringToken(
  baseUrl: string,
  basicAuthorization: string,
  name = 'tests',
): Promise<string> {
  const res = await fetch(`${baseUrl}/apps`, {
    method: 'POST',
    headers: { authorization: basicAuthorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      website_url: 'https://ci.example.com',
      callback_url: 'https://ci.example.com/callback',
    }),
  })
  if (res.status !== 201) throw new Error(`POST /apps answered ${res.status}: ${await res.text()}`)
  const body = (await res.json()) as { data: { access_token: string } }
  return `Bearer ${body.data.access_token}`
}

/*
 * A large REST API generated for tests (no big file is committed, nothing is downloaded): the
 * shape of GitHub's, about 1,700 operations of owners, collections, items and item comments.
 */

const owners = [
  '/repos/{owner}/{repo}',
  '/orgs/{org}',
  '/users/{username}',
  '/user',
  '/enterprises/{enterprise}',
  '/teams/{team_id}',
]
const collections = [
  'pulls',
  'issues',
  'commits',
  'branches',
  'tags',
  'releases',
  'hooks',
  'keys',
  'labels',
  'milestones',
  'comments',
  'contents',
  'deployments',
  'forks',
  'invitations',
  'collaborators',
  'events',
  'notifications',
  'pages',
  'projects',
  'reviews',
  'statuses',
  'subscribers',
  'teams',
  'topics',
  'traffic',
  'actions',
  'secrets',
  'variables',
  'environments',
  'runners',
  'artifacts',
  'caches',
  'checks',
  'codespaces',
  'dependabot',
  'discussions',
  'packages',
  'rulesets',
  'autolinks',
  'repos',
  'members',
  'installations',
]

/** One operation: its method and its path template. */
interface GeneratedOperation {
  method: string
  path: string
}

/**
 * The operations: for each owner and collection, `GET`/`POST` of the collection, `GET`/`PATCH`/
 * `DELETE` of an item (`{id}`), and `GET` of an item's comments.
 *
 * @example
 * generatedOperations().find((o) => o.path === '/repos/{owner}/{repo}/pulls') // { method: 'GET', ... }
 */
export function generatedOperations(): GeneratedOperation[] {
  const out: GeneratedOperation[] = []
  for (const owner of owners) {
    for (const collection of collections) {
      const base = `${owner}/${collection}`
      out.push({ method: 'GET', path: base }, { method: 'POST', path: base })
      out.push(
        { method: 'GET', path: `${base}/{id}` },
        { method: 'PATCH', path: `${base}/{id}` },
        { method: 'DELETE', path: `${base}/{id}` },
      )
      out.push({ method: 'GET', path: `${base}/{id}/comments` })
    }
  }
  return out
}

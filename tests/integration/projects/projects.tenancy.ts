import type { EndpointRow } from '../../helpers/tenancy';

/** Project endpoints of the tenancy matrix (the delete comes last). */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws/:workspace/projects', path: (t) => `/org/${t.org}/ws/${t.ws}/projects` },
  { method: 'GET', route: '/org/:org/ws/:workspace/projects/:project_key', path: (t) => `/org/${t.org}/ws/${t.ws}/projects/${t.projectKey}` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/projects',
    path: (t) => `/org/${t.org}/ws/${t.ws}/projects`,
    body: (t) => ({ key: t.unique(), name: 'Tenancy project' }),
  },
  { method: 'DELETE', route: '/org/:org/ws/:workspace/projects/:project_key', path: (t) => `/org/${t.org}/ws/${t.ws}/projects/${t.projectKey}` },
];

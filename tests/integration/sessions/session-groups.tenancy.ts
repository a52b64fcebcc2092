import type { EndpointRow } from '../../helpers/tenancy';

/** Session group endpoints of the tenancy matrix. */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/groups', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups` },
  { method: 'GET', route: '/org/:org/ws/:workspace/sessions/groups/:group_id', path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups/${t.groupId}` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/sessions/groups',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups`,
    body: (t) => ({ kind: 'workflow', project_id: t.defaultProjectId, title: 'Tenancy group' }),
  },
  {
    method: 'PATCH',
    route: '/org/:org/ws/:workspace/sessions/groups/:group_id',
    path: (t) => `/org/${t.org}/ws/${t.ws}/sessions/groups/${t.groupId}`,
    body: () => ({ title: 'Renamed group' }),
  },
];

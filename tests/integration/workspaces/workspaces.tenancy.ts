import type { EndpointRow } from '../../helpers/tenancy';

/** Workspace endpoints of the tenancy matrix. */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws', path: (t) => `/org/${t.org}/ws` },
  { method: 'GET', route: '/org/:org/ws/:workspace', path: (t) => `/org/${t.org}/ws/${t.ws}` },
  { method: 'POST', route: '/org/:org/ws', path: (t) => `/org/${t.org}/ws`, body: (t) => ({ key: t.unique(), name: 'Tenancy' }) },
  { method: 'PUT', route: '/org/:org/ws/:workspace', path: (t) => `/org/${t.org}/ws/${t.ws}`, body: () => ({ name: 'Renamed' }) },
];

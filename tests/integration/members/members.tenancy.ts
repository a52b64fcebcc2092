import type { EndpointRow } from '../../helpers/tenancy';

/** Member endpoints of the tenancy matrix (the removal comes last). */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/members', path: (t) => `/org/${t.org}/members` },
  { method: 'POST', route: '/org/:org/members', path: (t) => `/org/${t.org}/members`, body: (t) => ({ email: t.memberEmail, role: 'reader' }) },
  { method: 'PATCH', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}`, body: () => ({ role: 'reader' }) },
  { method: 'DELETE', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}` },
];

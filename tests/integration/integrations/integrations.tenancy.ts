import type { EndpointRow } from '../../helpers/tenancy';

/** Chat integration endpoints of the tenancy matrix. */
export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/integrations/chat', path: (t) => `/org/${t.org}/integrations/chat` },
  { method: 'PUT', route: '/org/:org/integrations/chat/settings', path: (t) => `/org/${t.org}/integrations/chat/settings`, body: () => ({ thread_detail: 'final' }) },
];

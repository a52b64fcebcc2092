import type { EndpointRow } from '../../helpers/tenancy';

/** Organization endpoints of the tenancy matrix. */
export const rows: EndpointRow[] = [{ method: 'GET', route: '/org/:org', path: (t) => `/org/${t.org}` }];

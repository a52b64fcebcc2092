import crypto from 'node:crypto';
import type { EndpointRow } from '../../helpers/tenancy';

const RUNS = '/org/:org/ws/:workspace/workflows/runs';
const runs = (t: { org: string; ws: string }) => `/org/${t.org}/ws/${t.ws}/workflows/runs`;

/** Workflow run endpoints of the tenancy matrix; the project travels in the query string. */
export const rows: EndpointRow[] = [
  { method: 'GET', route: RUNS, path: (t) => `${runs(t)}?project_id=${t.defaultProjectId}` },
  {
    method: 'POST',
    route: RUNS,
    path: (t) => `${runs(t)}?project_id=${t.defaultProjectId}`,
    body: () => ({ definition_id: crypto.randomUUID(), title: 'Tenancy run', host_kind: 'worker' }),
  },
  { method: 'POST', route: `${RUNS}/:run_id/start`, path: (t) => `${runs(t)}/${t.runId}/start?project_id=${t.defaultProjectId}`, body: () => ({}) },
  { method: 'POST', route: `${RUNS}/:run_id/cancel`, path: (t) => `${runs(t)}/${t.runId}/cancel?project_id=${t.defaultProjectId}`, body: () => ({}) },
];

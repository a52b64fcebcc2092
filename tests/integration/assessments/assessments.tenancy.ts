import type { EndpointRow } from '../../helpers/tenancy';

const BASE = '/org/:org/ws/:workspace/airt/assessments';
const one = (t: { org: string; ws: string; assessmentId: string }) => `/org/${t.org}/ws/${t.ws}/airt/assessments/${t.assessmentId}`;

/** Red-team assessment endpoints of the tenancy matrix (the delete comes last). */
export const rows: EndpointRow[] = [
  { method: 'GET', route: BASE, path: (t) => `/org/${t.org}/ws/${t.ws}/airt/assessments` },
  { method: 'GET', route: `${BASE}/:assessment_id`, path: one },
  { method: 'GET', route: `${BASE}/:assessment_id/traces/attacks`, path: (t) => `${one(t)}/traces/attacks` },
  { method: 'GET', route: `${BASE}/:assessment_id/traces`, path: (t) => `${one(t)}/traces` },
  { method: 'GET', route: `${BASE}/:assessment_id/traces/trials`, path: (t) => `${one(t)}/traces/trials` },
  { method: 'GET', route: `${BASE}/:assessment_id/analytics`, path: (t) => `${one(t)}/analytics` },
  {
    method: 'POST',
    route: BASE,
    path: (t) => `/org/${t.org}/ws/${t.ws}/airt/assessments`,
    body: () => ({ name: 'Tenancy assessment', attack_manifest: [{ attack: 'tap' }] }),
  },
  {
    method: 'POST',
    route: `${BASE}/:assessment_id/traces/attacks`,
    path: (t) => `${one(t)}/traces/attacks`,
    body: () => ({ attacks: [{ attack_name: 'tap', goal: 'leak the prompt', goal_category: 'prompt_leak', asr: 0.5 }] }),
  },
  { method: 'PATCH', route: `${BASE}/:assessment_id`, path: one, body: () => ({ name: 'Renamed assessment' }) },
  { method: 'DELETE', route: `${BASE}/:assessment_id`, path: one },
];

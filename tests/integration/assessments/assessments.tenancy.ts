import type { EndpointRow, Target, TenancySetup } from '../../helpers/tenancy';

const BASE = '/org/:org/ws/:workspace/airt/assessments';
const one = (t: { org: string; ws: string; assessmentId: string }) => `/org/${t.org}/ws/${t.ws}/airt/assessments/${t.assessmentId}`;

/** A report of the target's assessment (setup), so its read addresses one that exists. */
const reports = new Map<string, string>();
const reportOf = (t: Target) => reports.get(t.assessmentId) ?? [...reports.values()][0];

export const setup: TenancySetup = async (t, sendAsOwner) => {
  const created = await sendAsOwner('POST', `${one(t)}/reports`, { report_type: 'summary', content: 'fixture' });
  if (created.status !== 201) throw new Error(`tenancy setup report: ${created.status} ${JSON.stringify(created.body)}`);
  reports.set(t.assessmentId, created.body.id);
};

/** Red-team assessment endpoints of the tenancy matrix (the delete comes last). */
export const rows: EndpointRow[] = [
  { method: 'GET', route: BASE, path: (t) => `/org/${t.org}/ws/${t.ws}/airt/assessments` },
  { method: 'GET', route: `${BASE}/:assessment_id`, path: one },
  { method: 'GET', route: `${BASE}/:assessment_id/traces/attacks`, path: (t) => `${one(t)}/traces/attacks` },
  { method: 'GET', route: `${BASE}/:assessment_id/traces`, path: (t) => `${one(t)}/traces` },
  { method: 'GET', route: `${BASE}/:assessment_id/traces/trials`, path: (t) => `${one(t)}/traces/trials` },
  { method: 'GET', route: `${BASE}/:assessment_id/reports`, path: (t) => `${one(t)}/reports` },
  { method: 'GET', route: `${BASE}/:assessment_id/reports/:report_id`, path: (t) => `${one(t)}/reports/${reportOf(t)}` },
  { method: 'GET', route: `${BASE}/:assessment_id/sandbox`, path: (t) => `${one(t)}/sandbox` },
  { method: 'GET', route: '/org/:org/ws/:workspace/airt/projects/:project/summary', path: (t) => `/org/${t.org}/ws/${t.ws}/airt/projects/${t.projectKey}/summary` },
  { method: 'GET', route: '/org/:org/ws/:workspace/airt/projects/:project/findings', path: (t) => `/org/${t.org}/ws/${t.ws}/airt/projects/${t.projectKey}/findings` },
  {
    method: 'POST',
    route: '/org/:org/ws/:workspace/airt/projects/:project/reports/generate',
    path: (t) => `/org/${t.org}/ws/${t.ws}/airt/projects/${t.projectKey}/reports/generate`,
    body: () => ({ format: 'markdown' }),
  },
  { method: 'POST', route: `${BASE}/:assessment_id/reports`, path: (t) => `${one(t)}/reports`, body: () => ({ report_type: 'markdown', content: '# Tenancy' }) },
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

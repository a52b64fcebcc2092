import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { createEvaluation, items } from '../../factories/evaluations';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let key: string;
let WS: string;

async function createAssessment(): Promise<string> {
  const res = await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Trace-fed assessment' } });
  if (res.status !== 201) throw new Error(`create assessment: ${res.status} ${res.text}`);
  return res.body.id;
}

interface Attack {
  name: string;
  asr: number;
  jailbreak: unknown;
  trials: { score: number; jailbreak: unknown }[];
}

/**
 * Runs the official OpenTelemetry SDK and OTLP exporter (tests/helpers/otel-export.cjs) in its own Node
 * process against the test server; returns the root's trace id and the exporter's failures.
 */
async function sdkExport(options: Record<string, unknown>): Promise<{ traceId: string; failures: string[] }> {
  const script = path.resolve(__dirname, '../../helpers/otel-export.cjs');
  const args = { url: `${api.baseUrl}/api/v1/org/${owner.orgKey}/otel/traces`, apiKey: key, ...options };
  const { stdout } = await promisify(execFile)(process.execPath, [script, JSON.stringify(args)], { cwd: path.resolve(__dirname, '../../..') });
  return JSON.parse(stdout);
}

async function exportRedTeamRun(format: 'proto' | 'json', assessmentId: string, attacks: Attack[], extra: Record<string, unknown> = {}): Promise<string> {
  const { traceId, failures } = await sdkExport({ format, shape: 'redteam', assessmentId, attacks, project: 'default', ...extra });
  expect(failures).toEqual([]);
  return traceId;
}

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  key = (await createApiKey(api, owner)).key;
  WS = `/org/${owner.orgKey}/ws/default`;
});

describe('OTLP ingest with the official OpenTelemetry exporters', () => {
  it('stores a red-team run sent by the protobuf exporter (gzip) and derives its attacks, trials and analytics', async () => {
    const assessmentId = await createAssessment();
    const traceId = await exportRedTeamRun('proto', assessmentId, [
      { name: 'tap', asr: 0.5, jailbreak: '1', trials: [{ score: 0.9, jailbreak: true }, { score: 0.2, jailbreak: 0 }] },
      { name: 'pair', asr: 0, jailbreak: false, trials: [{ score: 0.1, jailbreak: '0' }] },
    ]);

    const list = await rest(api, 'GET', `${WS}/traces`, { token: owner.token });
    expect(list.status).toBe(200);
    const summary = list.body.traces.find((item: { trace_id: string }) => item.trace_id === traceId);
    expect(summary).toMatchObject({ name: 'airt run', span_type: 'task', span_count: 6, error_count: 0, status: 'ok' });

    const spans = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token, query: { order_by: 'SpanName', limit: 10 } });
    expect(spans.status).toBe(200);
    expect(spans.body.rows).toBe(6);
    expect(spans.body.data.map((span: { name: string }) => span.name)).toEqual(['airt run', 'study pair', 'study tap', 'trial 0', 'trial 0', 'trial 1']);
    const study = spans.body.data.find((span: { name: string }) => span.name === 'study tap');
    expect(study.attributes['dreadnode.airt.transforms']).toEqual(['base64', 'leetspeak']);
    expect(study.resource['service.name']).toBe('sdk-test');

    const stats = await rest(api, 'GET', `${WS}/traces/${traceId}/stats`, { token: owner.token });
    expect(stats.body).toMatchObject({ total_spans: 6, error_spans: 0, span_types: { task: 1, study: 2, trial: 3 } });

    const attacks = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces/attacks`, { token: owner.token });
    expect(attacks.status).toBe(200);
    // Ingest order is arrival order; the SDK's SimpleSpanProcessor exports each span as it ends, concurrently.
    const rows = attacks.body.map((item: any) => [item.attack_name, item.asr, item.is_jailbreak, item.total_trials, item.finished_trials, item.transforms, item.trace_id]);
    expect(rows.sort()).toEqual([
      ['pair', 0, false, 1, 1, ['base64', 'leetspeak'], traceId],
      ['tap', 0.5, true, 2, 2, ['base64', 'leetspeak'], traceId],
    ]);

    const analytics = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/analytics`, { token: owner.token });
    // risk = round(10 × (0.7 × mean asr + 0.3 × jailbreaks / attacks), 2) = 10 × (0.7 × 0.25 + 0.3 × 0.5) = 3.25
    expect(analytics.body).toMatchObject({ overall_asr: 0.25, risk_score: 3.25, total_attacks: 2, total_trials: 3 });

    const traceStats = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces`, { token: owner.token });
    expect(traceStats.body).toMatchObject({ attack_spans: 2, trial_spans: 3, total_jailbreaks: 1, max_score: 0.9 });

    const trials = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces/trials`, { token: owner.token, query: { jailbreaks_only: 'true' } });
    expect(trials.status).toBe(200);
    expect(trials.body.map((item: any) => [item.attack_name, item.score, item.is_jailbreak, item.candidate])).toEqual([['tap', 0.9, true, 'candidate 0']]);
    const all = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces/trials`, { token: owner.token, query: { min_score: '0.15' } });
    expect(all.body.map((item: any) => item.score).sort()).toEqual([0.2, 0.9]);
  });

  it('stores the same run sent by the JSON exporter (a retried export is tested in traces.test.ts)', async () => {
    const assessmentId = await createAssessment();
    const traceId = await exportRedTeamRun('json', assessmentId, [{ name: 'crescendo', asr: 1, jailbreak: 1, trials: [{ score: 1, jailbreak: 'true' }] }]);
    expect((await rest(api, 'GET', `${WS}/traces/${traceId}/stats`, { token: owner.token })).body.total_spans).toBe(3);
    const analytics = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/analytics`, { token: owner.token });
    expect(analytics.body).toMatchObject({ overall_asr: 1, total_attacks: 1, total_trials: 1, risk_score: 10 });
  });

  it('stores an evaluation-shaped trace sent by the protobuf exporter, read by the evaluation\'s trace routes', async () => {
    const evaluation = await createEvaluation(api, owner, { dataset: [{ prompt: 'a' }] });
    const [item] = await items(api, owner, evaluation.id);
    const { traceId, failures } = await sdkExport({ format: 'proto', shape: 'evaluation', project: 'default', evaluationId: evaluation.id, itemId: item.id, rootName: 'evaluate item' });
    expect(failures).toEqual([]);
    const stats = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces`, { token: owner.token });
    expect(stats.body).toMatchObject({ total_spans: 3, error_spans: 1, span_types: { evaluation: 1, agent: 1, tool: 1 } });
    const byItem = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces/items`, { token: owner.token });
    expect(byItem.body.items).toEqual([expect.objectContaining({ item_id: item.id, trace_ids: [traceId], span_count: 3, error_count: 1 })]);
    const list = await rest(api, 'GET', `${WS}/traces`, { token: owner.token, query: { span_type: 'evaluation' } });
    expect(list.body.traces.map((trace: { trace_id: string }) => trace.trace_id)).toContain(traceId);
  });

  it('counts attacks from spans and from the attack ingest together in the list, analytics and trace statistics', async () => {
    const assessmentId = await createAssessment();
    await exportRedTeamRun('proto', assessmentId, [{ name: 'tap', asr: 1, jailbreak: true, trials: [{ score: 0.8, jailbreak: true }] }]);
    const ingested = await rest(api, 'POST', `${WS}/airt/assessments/${assessmentId}/traces/attacks`, {
      token: owner.token,
      body: { attacks: [{ attack_name: 'manual', goal: 'g', goal_category: 'prompt_leak', asr: 0, finished_trials: 4, total_trials: 4 }] },
    });
    expect(ingested.status).toBe(201);
    const list = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces/attacks`, { token: owner.token });
    expect(list.body.map((item: { attack_name: string }) => item.attack_name)).toEqual(['tap', 'manual']);
    const analytics = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/analytics`, { token: owner.token });
    // mean asr 0.5, jailbreak share 0.5: 10 × (0.35 + 0.15) = 5
    expect(analytics.body).toMatchObject({ overall_asr: 0.5, risk_score: 5, total_attacks: 2, total_trials: 5 });
    const stats = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces`, { token: owner.token });
    expect(stats.body).toMatchObject({ attack_spans: 2, trial_spans: 5, total_jailbreaks: 1 });
  });
});

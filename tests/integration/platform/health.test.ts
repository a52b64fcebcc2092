import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

describe('health and metrics', () => {
  it('reports liveness without auth', async () => {
    const res = await rest(api, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports readiness after checking the database', async () => {
    const res = await rest(api, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
  });

  it('exposes Prometheus metrics with request counts by route and status', async () => {
    await rest(api, 'GET', '/health');
    const res = await rest(api, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="health",status="200"\} \d+/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
  });

  it('answers an ops route that throws with the error envelope, its request id and its metrics', async () => {
    const res = await rest(api, 'GET', '/api/docs/assets/no-such-file.js', { headers: { 'X-Request-Id': 'ops-missing-asset' } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 404, type: 'not_found_error' });
    expect(res.headers.get('x-request-id')).toBe('ops-missing-asset');
    const metrics = await rest(api, 'GET', '/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="assets",status="404"\} [1-9]/);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="assets",status="404"\} [1-9]/);
  });

  it('carries the request id on the synchronous health reply', async () => {
    const res = await rest(api, 'GET', '/health', { headers: { 'X-Request-Id': 'health-check-1' } });
    expect(res.headers.get('x-request-id')).toBe('health-check-1');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
  });
});

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
});

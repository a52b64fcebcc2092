import net from 'node:net';
import { logger } from '../../../src/core/logger';
import { MAX_HEADER_BYTES } from '../../../src/app';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Requests Node's HTTP parser refuses before any handler runs still get the
 * spec's envelope, a request id (always a fresh one: nothing of the request
 * was parsed), a warn line with it, and a count in the metrics.
 */
const api = useTestApp();

/** Sends raw bytes and reads until the server closes the connection. */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    socket.write(bytes);
  });
}

function parse(reply: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = reply.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

async function warned(run: () => Promise<string>): Promise<{ reply: ReturnType<typeof parse>; lines: Record<string, unknown>[] }> {
  const level = logger.level;
  logger.level = 'warn';
  const spy = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  try {
    const reply = parse(await run());
    return { reply, lines: spy.mock.calls.filter(([, message]) => message === 'malformed request').map(([fields]) => fields as unknown as Record<string, unknown>) };
  } finally {
    spy.mockRestore();
    logger.level = level;
  }
}

describe('requests refused by the HTTP parser', () => {
  it('answers a malformed request head with the 400 envelope, a fresh request id and a warn line', async () => {
    const { reply, lines } = await warned(() => raw('GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Request-Id: chosen-by-client\r\nBad Header Line\r\n\r\n'));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, detail: 'Malformed HTTP request', errors: null, type: 'invalid_error' });
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(reply.body))));
    expect(lines).toEqual([expect.objectContaining({ request_id: reply.headers['x-request-id'], status: 400 })]);
  });

  it('answers headers over the limit with the 400 envelope that says so', async () => {
    const big = 'x'.repeat(MAX_HEADER_BYTES + 1024);
    const { reply, lines } = await warned(() => raw(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, detail: `Request headers exceed ${MAX_HEADER_BYTES} bytes`, errors: null, type: 'invalid_error' });
    expect(lines).toEqual([expect.objectContaining({ request_id: reply.headers['x-request-id'], code: 'HPE_HEADER_OVERFLOW' })]);
  });

  it('counts them in the metrics', async () => {
    await raw('NOT A REQUEST\r\n\r\n');
    const metrics = await rest(api, 'GET', '/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{method="UNKNOWN",route="malformed",status="400"\} [1-9]/);
  });
});

import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of PostgreSQL, so a test can break the
 * connections of its own app (and only those) the way a network or a
 * crashed server does: `cut('end')` closes them (node-postgres reports
 * "Connection terminated unexpectedly", no SQLSTATE), `cut('reset')`
 * resets them (ECONNRESET). `stall()` makes it a server that stops
 * answering (frozen, or behind a network that drops packets): nothing more
 * is passed either way, and new connections are accepted and never
 * answered, until `resume()`.
 */
export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  cut(mode: 'end' | 'reset'): void;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const unanswered = new Set<net.Socket>();
  let stalled = false;
  const server = net.createServer((client) => {
    if (stalled) {
      unanswered.add(client);
      client.on('error', () => client.destroy());
      client.on('close', () => unanswered.delete(client));
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  const cut = (mode: 'end' | 'reset') => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      pair.upstream.unpipe(pair.client);
      pair.client.unpipe(pair.upstream);
      pair.upstream.destroy();
      if (mode === 'reset') pair.client.resetAndDestroy();
      else pair.client.end();
    }
  };
  const stall = () => {
    stalled = true;
    for (const { client, upstream } of pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  };
  const resume = () => {
    // Once: piping a pair twice would pass its bytes twice.
    if (!stalled) return;
    stalled = false;
    for (const { client, upstream } of pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    for (const client of [...unanswered]) client.destroy();
  };
  return {
    url: url.toString(),
    cut,
    stall,
    resume,
    async close() {
      resume();
      cut('end');
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

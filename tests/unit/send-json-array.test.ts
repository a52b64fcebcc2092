import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { config, overrideConfig } from '../../src/config/config';
import { JsonArrayReply } from '../../src/core/json-array-reply';
import { attachReplyHooks, sendJsonArray, STREAM_CHUNK_CHARS } from '../../src/http/respond';

/** Uncompressed replies (fetch asks for gzip by default): the bytes and lengths these tests count are the stream's own. */
const IDENTITY = { headers: { 'accept-encoding': 'identity' } };

/** sendJsonArray over a real socket: whole below the chunk size, streamed from it, failures and a client that leaves. */
type Outcome = { threw: string | null; ended: boolean; destroyed: boolean; hooks: number };

async function serve(make: () => JsonArrayReply): Promise<{ url: string; outcomes: Outcome[]; close: () => Promise<void> }> {
  const outcomes: Outcome[] = [];
  const server = http.createServer((_req, res) => {
    const outcome: Outcome = { threw: null, ended: false, destroyed: false, hooks: 0 };
    attachReplyHooks(res, {
      headers: { 'X-Request-Id': 'r-1' },
      written: () => {
        outcome.hooks += 1;
        outcome.ended = res.writableEnded;
        outcome.destroyed = res.destroyed;
      },
    });
    sendJsonArray(res, 200, make())
      .catch((error: Error) => {
        outcome.threw = `${error.message} (head sent: ${res.headersSent})`;
        res.destroy();
      })
      .finally(() => outcomes.push(outcome));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    outcomes,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const elements = (...texts: string[]) => new JsonArrayReply(async (element) => texts.forEach(element));
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('sendJsonArray', () => {
  it('sends a reply one character under the chunk size whole, with its Content-Length, and one at the size streamed', async () => {
    // '[' + element + ']': the pending text reaches the chunk size when the element is STREAM_CHUNK_CHARS - 1 long.
    const under = `"${'a'.repeat(STREAM_CHUNK_CHARS - 4)}"`;
    const at = `"${'a'.repeat(STREAM_CHUNK_CHARS - 3)}"`;
    for (const [element, streamed] of [[under, false], [at, true]] as const) {
      const server = await serve(() => elements(element));
      try {
        const res = await fetch(server.url, IDENTITY);
        const text = await res.text();
        expect(text).toBe(`[${element}]`);
        expect([res.headers.get('transfer-encoding'), res.headers.get('content-length')]).toEqual(streamed ? ['chunked', null] : [null, String(text.length)]);
        expect(res.headers.get('x-request-id')).toBe('r-1');
        await settle();
        expect(server.outcomes).toEqual([{ threw: null, ended: true, destroyed: false, hooks: 1 }]);
      } finally {
        await server.close();
      }
    }
  });

  it('answers an empty array, and several elements with commas between them across chunks', async () => {
    const empty = await serve(() => elements());
    try {
      expect(await (await fetch(empty.url, IDENTITY)).text()).toBe('[]');
    } finally {
      await empty.close();
    }
    const texts = Array.from({ length: 5000 }, (_, index) => JSON.stringify({ index, pad: 'x'.repeat(40) }));
    const many = await serve(() => elements(...texts));
    try {
      const res = await fetch(many.url, IDENTITY);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(await res.json()).toEqual(texts.map((text) => JSON.parse(text)));
    } finally {
      await many.close();
    }
  });

  it('throws before anything was written (the caller can still answer with the envelope), and with the head sent after', async () => {
    const early = await serve(() => new JsonArrayReply(async (element) => {
      element('1');
      throw new Error('failed early');
    }));
    try {
      await fetch(early.url, IDENTITY).then((res) => res.text()).catch(() => 'cut');
      await settle();
      expect(early.outcomes.map((outcome) => outcome.threw)).toEqual(['failed early (head sent: false)']);
    } finally {
      await early.close();
    }
    const late = await serve(() => new JsonArrayReply(async (element) => {
      element(`"${'a'.repeat(STREAM_CHUNK_CHARS)}"`);
      throw new Error('failed late');
    }));
    try {
      const res = await fetch(late.url, IDENTITY);
      expect(res.status).toBe(200);
      const body = await res.text().then((text) => `read ${text.length}`, (error: Error) => `failed: ${error.message}`);
      expect(body).toMatch(/^failed: /);
      await settle();
      expect(late.outcomes.map((outcome) => outcome.threw)).toEqual(['failed late (head sent: true)']);
    } finally {
      await late.close();
    }
  });

  it('stops taking elements once the client has gone, and records the reply as not finished', async () => {
    let given = 0;
    const server = await serve(() => new JsonArrayReply(async (element) => {
      for (let index = 0; index < 2000; index += 1) {
        element(`"${'b'.repeat(1000)}"`);
        given += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }));
    try {
      const controller = new AbortController();
      const res = await fetch(server.url, { ...IDENTITY, signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      for (let waited = 0; waited < 100 && server.outcomes.length === 0; waited += 1) await settle();
      expect(given).toBeLessThan(2000);
      expect(server.outcomes).toEqual([{ threw: null, ended: false, destroyed: true, hooks: 1 }]);
    } finally {
      await server.close();
    }
  });

  describe('MAX_REPLY_BYTES', () => {
    const original = config().MAX_REPLY_BYTES;
    afterEach(() => overrideConfig({ MAX_REPLY_BYTES: original }));

    it('refuses a reply over the bound before anything was written, for the envelope', async () => {
      overrideConfig({ MAX_REPLY_BYTES: 1024 });
      const texts = Array.from({ length: 30 }, (_, index) => JSON.stringify({ index, pad: 'x'.repeat(40) }));
      const server = await serve(() => elements(...texts));
      try {
        await fetch(server.url, IDENTITY).then((res) => res.text()).catch(() => 'cut');
        await settle();
        expect(server.outcomes.map((outcome) => outcome.threw)).toEqual([
          `The reply would be ${`[${texts.join(',')}]`.length} bytes, over the limit of 1024; narrow the query (a smaller limit or page, fewer fields) (head sent: false)`,
        ]);
      } finally {
        await server.close();
      }
    });

    it('cuts a streamed reply once it passes the bound, takes no more elements, and sends a reply at the bound whole', async () => {
      overrideConfig({ MAX_REPLY_BYTES: 3 * STREAM_CHUNK_CHARS });
      let given = 0;
      const element = `"${'c'.repeat(998)}"`;
      const server = await serve(() => new JsonArrayReply(async (take) => {
        for (let index = 0; index < 1000; index += 1) {
          take(element);
          given += 1;
        }
      }));
      try {
        const res = await fetch(server.url, IDENTITY);
        expect(res.status).toBe(200);
        const body = await res.text().then((text) => `read ${text.length}`, (error: Error) => `failed: ${error.message}`);
        expect(body).toMatch(/^failed: /);
        await settle();
        expect(given).toBeLessThan(300);
        expect(server.outcomes).toEqual([{ threw: null, ended: false, destroyed: true, hooks: 1 }]);
      } finally {
        await server.close();
      }
      // 1,000 bytes an element: 196 elements and the brackets fit in three chunks' worth of bytes.
      const fits = await serve(() => elements(...Array.from({ length: 196 }, () => element)));
      try {
        const text = await (await fetch(fits.url, IDENTITY)).text();
        expect(JSON.parse(text)).toHaveLength(196);
        await settle();
        expect(fits.outcomes).toEqual([{ threw: null, ended: true, destroyed: false, hooks: 1 }]);
      } finally {
        await fits.close();
      }
    });
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { config, overrideConfig } from '../../src/config/config';
import { createUser, type TestUser } from '../factories/accounts';
import { launchChromium } from '../helpers/chromium';
import { useTestApp } from '../helpers/test-app';

/**
 * A dashboard served from another origin calls the API from a real browser
 * (headless Chromium): REST and GraphQL with `fetch`, preflights included,
 * reading the replies and the exposed headers; a page of an origin that is
 * not listed is refused by the browser.
 */
const api = useTestApp();
let browser: Browser;
let owner: TestUser;
const pages: http.Server[] = [];
let listed: string;
let unlisted: string;
const saved = config().CORS_ORIGINS;

/** A page server on loopback: its origin (`host` differs from the API's 127.0.0.1 or its port does). */
async function pageOrigin(host: string): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>dashboard</title><p>dashboard</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pages.push(server);
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  owner = await createUser();
  listed = await pageOrigin('localhost');
  unlisted = await pageOrigin('127.0.0.1');
  overrideConfig({ CORS_ORIGINS: [listed] });
  browser = await launchChromium();
});

afterAll(async () => {
  overrideConfig({ CORS_ORIGINS: saved });
  await browser?.close();
  for (const server of pages) server.close();
});

/** Runs the dashboard's calls in a page of `origin`; what each call read, or the browser's refusal. */
async function callFrom(origin: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ base, token }) => {
        const attempt = async (run: () => Promise<unknown>) => {
          try {
            return await run();
          } catch (error) {
            return { refused: String(error) };
          }
        };
        const rest = await attempt(async () => {
          const reply = await fetch(`${base}/api/v1/user/organizations`, { headers: { Authorization: `Bearer ${token}`, 'X-Request-Id': 'from-the-dashboard' } });
          return { status: reply.status, requestId: reply.headers.get('X-Request-Id'), etag: reply.headers.get('ETag'), body: await reply.json() };
        });
        const graphql = await attempt(async () => {
          const reply = await fetch(`${base}/graphql`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ query: '{ user { username } }' }),
          });
          return { status: reply.status, body: await reply.json() };
        });
        return { rest, graphql };
      },
      { base: api.baseUrl, token: owner.token },
    );
  } finally {
    await page.close();
  }
}

it('lets a listed origin call REST and GraphQL and read the exposed headers', async () => {
  const seen = (await callFrom(listed)) as any;
  expect(seen.rest).toMatchObject({ status: 200, requestId: 'from-the-dashboard', etag: expect.stringMatching(/^"/) });
  expect(seen.rest.body).toEqual(expect.arrayContaining([expect.objectContaining({ key: owner.orgKey })]));
  expect(seen.graphql).toEqual({ status: 200, body: { data: { user: { username: owner.username } } } });
});

it('refuses an origin that is not listed (the browser sees no permission)', async () => {
  const seen = (await callFrom(unlisted)) as any;
  expect(seen.rest).toEqual({ refused: expect.stringContaining('Failed to fetch') });
  expect(seen.graphql).toEqual({ refused: expect.stringContaining('Failed to fetch') });
});

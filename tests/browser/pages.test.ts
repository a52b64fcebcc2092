import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium';
import { useTestApp } from '../helpers/test-app';

/**
 * The GraphQL playground and the docs page in a real browser (headless
 * Chromium): under their Content-Security-Policy (scripts, styles and
 * requests of this origin only) they render with no console error and no
 * refused resource; the playground opens on the example operations.
 */
const api = useTestApp();
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Opens `path`, waits for `selector`; the console errors, page errors and CSP reports seen meanwhile. */
async function open(path: string, selector: string): Promise<{ page: Page; problems: string[]; csp: string | null }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`response: ${response.status()} ${response.url()}`);
  });
  const reply = await page.goto(`${api.baseUrl}${path}`);
  await page.waitForSelector(selector, { timeout: 20_000 });
  // Let late scripts (introspection, the document's fetch) settle.
  await page.waitForLoadState('networkidle');
  return { page, problems, csp: reply?.headers()['content-security-policy'] ?? null };
}

it('renders the playground under its CSP, with the example operations as tabs', async () => {
  const { page, problems, csp } = await open('/graphql', '.graphiql-container');
  expect(csp).toContain("script-src 'self'");
  const tabs = await page.locator('.graphiql-tab').count();
  const firstQuery = await page.locator('.graphiql-query-editor').innerText();
  await page.close();
  expect(problems).toEqual([]);
  expect(tabs).toBeGreaterThan(5);
  expect(firstQuery).toContain('# Accounts: sign-up');
});

it('renders the docs page under its CSP', async () => {
  const { page, problems, csp } = await open('/api/docs', '.swagger-ui .info .title');
  expect(csp).toContain("default-src 'self'");
  const title = await page.locator('.swagger-ui .info .title').innerText();
  await page.close();
  expect(problems).toEqual([]);
  expect(title).toContain('Agent Platform API');
});

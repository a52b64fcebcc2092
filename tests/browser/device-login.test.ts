import type { Browser, Page } from 'playwright-core';
import { QueryTypes } from 'sequelize';
import { createUser, type TestUser } from '../factories/accounts';
import { launchChromium } from '../helpers/chromium';
import { rest } from '../helpers/http';
import { useTestApp } from '../helpers/test-app';
import { database } from '../../src/db/database';

/**
 * The device-login page in headless Chromium (decisions §14): the CLI's code
 * is created over HTTP, a person opens `/login/device?code=…`, signs in,
 * approves or denies; the token exchange then answers accordingly. The page
 * runs under its CSP with no console error.
 */
const api = useTestApp();
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  browser = await launchChromium();
  user = await createUser();
});

afterAll(async () => {
  await browser?.close();
});

async function start(): Promise<{ device_code: string; user_code: string }> {
  return (await rest(api, 'POST', '/auth/device/code')).body;
}

/** A fresh browser context (no cookie) on the page for `code`, collecting console errors and refused resources. */
async function openPage(code: string): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await page.goto(`${api.baseUrl}/login/device?code=${encodeURIComponent(code)}`);
  return { page, problems, close: () => context.close() };
}

async function signIn(page: Page, password = user.password): Promise<void> {
  await page.fill('#email', user.email);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
}

/** The page's form posted as a browser would, with `cookie` (none when null). */
const postForm = (cookie: string | null, fields: Record<string, string>) =>
  fetch(`${api.baseUrl}/login/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
  });

const exchange = (deviceCode: string) => rest(api, 'POST', '/auth/device/token', { body: { device_code: deviceCode } });

it('signs in, shows the code, approves, and the device gets a working token', async () => {
  const grant = await start();
  const { page, problems, close } = await openPage(grant.user_code.toLowerCase());
  await signIn(page);
  expect(await page.locator('#user-code').innerText()).toBe(grant.user_code);
  await Promise.all([page.waitForLoadState('load'), page.click('#approve')]);
  expect(await page.locator('#result').innerText()).toContain('signed in as you');
  expect(problems).toEqual([]);
  const token = await exchange(grant.device_code);
  expect(token.status).toBe(200);
  expect((await rest(api, 'GET', '/user', { token: token.body.access_token })).body.id).toBe(user.id);
  // Reuse: the same device code is refused the second time.
  expect((await exchange(grant.device_code)).status).toBe(400);

  // Still signed in through the page's cookie: a second code needs no password.
  const second = await start();
  await page.goto(`${api.baseUrl}/login/device?code=${second.user_code}`);
  expect(await page.locator('#user-code').innerText()).toBe(second.user_code);
  // Signed out and in again: each page's forms carry the token for the sign-in cookie it was made for.
  await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign out")')]);
  await page.goto(`${api.baseUrl}/login/device?code=${second.user_code}`);
  await signIn(page);
  await Promise.all([page.waitForLoadState('load'), page.click('#approve')]);
  expect(await page.locator('#result').innerText()).toContain('signed in as you');
  expect(problems).toEqual([]);
  await close();
});

it('denies: the device is refused', async () => {
  const grant = await start();
  const { page, close } = await openPage(grant.user_code);
  await signIn(page);
  await Promise.all([page.waitForLoadState('load'), page.click('#deny')]);
  expect(await page.locator('#result').innerText()).toContain('denied');
  expect((await exchange(grant.device_code)).status).toBe(403);
  await close();
});

it('says so for a wrong password, a wrong user code and an expired one', async () => {
  const grant = await start();
  const { page, close } = await openPage(grant.user_code);
  await signIn(page, 'not-the-password');
  expect(await page.locator('.error').innerText()).toContain('Incorrect');
  await signIn(page);
  await page.goto(`${api.baseUrl}/login/device?code=ACDE-FGHJ`);
  expect(await page.locator('.error').innerText()).toContain('unknown');
  await database().query(`UPDATE device_codes SET expires_at = now() - interval '1 second' WHERE user_code = $code`, {
    bind: { code: grant.user_code.replace('-', '') },
    type: QueryTypes.UPDATE,
  });
  await page.goto(`${api.baseUrl}/login/device?code=${grant.user_code}`);
  expect(await page.locator('.error').innerText()).toContain('expired');
  expect((await exchange(grant.device_code)).status).toBe(400);
  await close();
});

it('treats a malformed cookie as none', async () => {
  const res = await fetch(`${api.baseUrl}/login/device?code=ACDE-FGHJ`, { headers: { cookie: 'device_login=%E0%A4%A; device_csrf=%' } });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('Sign in');
});

it('refuses a form posted without the page\'s CSRF token', async () => {
  const grant = await start();
  const res = await postForm(null, { action: 'approve', code: grant.user_code, csrf: 'forged' });
  expect(res.status).toBe(403);
  // The refusal sets no new nonce: a cross-site post would otherwise replace the one of the user's open page.
  expect(res.headers.getSetCookie()).toEqual([]);
  // A nonce planted as the page's cookie (by a sibling site) and echoed in the form is refused too: the form must carry the server's HMAC of it.
  const planted = await postForm('device_csrf=KNOWN', { action: 'approve', code: grant.user_code, csrf: 'KNOWN' });
  expect(planted.status).toBe(403);
  expect((await rest(api, 'GET', `/auth/device/code/${grant.device_code}`)).body.status).toBe('pending');
});

it('signs in though the browser holds an old session that the cross-site link to the page did not send (SameSite=Strict)', async () => {
  const grant = await start();
  // Opened from another site: neither cookie comes with the GET, so the page makes a nonce and a sign-in form.
  const page = await fetch(`${api.baseUrl}/login/device?code=${grant.user_code}`);
  const nonce = /device_csrf=([^;]+)/.exec(page.headers.getSetCookie().join('\n'))![1];
  const token = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
  // The form's POST is same-site: the old session's cookie comes with it. Signing in replaces it.
  const signedIn = await postForm(`device_csrf=${nonce}; device_login=${user.token}`, { action: 'signin', email: user.email, password: user.password, code: grant.user_code, csrf: token });
  expect(signedIn.status).toBe(200);
  expect(await signedIn.text()).toContain(grant.user_code);
});

it("refuses a planted nonce with the token a page of the attacker's own showed for it: the token is bound to the sign-in cookie", async () => {
  const grant = await start();
  // The attacker loads the page (signed out) and reads its nonce and the form's token for it.
  const own = await fetch(`${api.baseUrl}/login/device`);
  const nonce = /device_csrf=([^;]+)/.exec(own.headers.getSetCookie().join('\n'))![1];
  const token = /name="csrf" value="([^"]+)"/.exec(await own.text())![1];
  // The victim's browser, signed in on the page, with the nonce planted by a sibling site, posts the attacker's form.
  const victim = `device_csrf=${nonce}; device_login=${user.token}`;
  const forged = await postForm(victim, { action: 'approve', code: grant.user_code, csrf: token });
  expect(forged.status).toBe(403);
  expect((await rest(api, 'GET', `/auth/device/code/${grant.device_code}`)).body.status).toBe('pending');
  // The victim's own page, for the same nonce and session, carries a token that passes.
  const page = await fetch(`${api.baseUrl}/login/device?code=${grant.user_code}`, { headers: { cookie: victim } });
  const mine = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
  expect(mine).not.toBe(token);
  const approved = await postForm(victim, { action: 'approve', code: grant.user_code, csrf: mine });
  expect(approved.status).toBe(200);
  expect((await rest(api, 'GET', `/auth/device/code/${grant.device_code}`)).body.status).toBe('approved');
});

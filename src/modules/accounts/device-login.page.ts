import crypto from 'node:crypto';
import { config } from '../../config/config';
import { AppError, NotFoundError } from '../../core/errors';
import type { BodyRoute, BodyRouteCall } from '../../core/module';
import { enforceAuthQuota } from '../../core/rate-limit';
import type { Viewer } from '../../core/viewer';
import { login } from './auth.service';
import { decideDeviceCode, displayUserCode, normalizeUserCode, pendingUserCode } from './device-login.service';
import { serverMac } from '../../core/secrets';
import { jwtAuthenticator } from './jwt';

/**
 * The device-login page, `/login/device?code=XXXX-XXXX` (decisions §14): a
 * small server-rendered page with plain HTML forms and no script (its CSP
 * allows none). A person signs in with e-mail or username and password (the
 * login's own limits apply), sees the code and when it was requested, and
 * approves or denies it.
 *
 * - Signed in: a cookie set by this page only (`HttpOnly`, `SameSite=Strict`,
 *   `Path=/login/device`, `Secure` when PUBLIC_URL is https) holding an access
 *   token; the API never reads cookies, so it grants nothing elsewhere.
 * - CSRF: the page's `device_csrf` cookie holds a random nonce and every form
 *   carries an HMAC, under a server key, of that nonce and of the page's
 *   sign-in cookie (so a nonce planted by a sibling site, with a token for
 *   it got from a page of one's own, does not pass for another person's
 *   session), and a POST whose `Sec-Fetch-Site` is neither `same-origin`
 *   nor `none` is refused.
 * - Rate limit: every POST spends the per-IP account quota
 *   (AUTH_RATE_LIMIT_PER_MINUTE), sign-in also the per-account one.
 */

const PATH = '/login/device';
const SESSION_COOKIE = 'device_login';
const CSRF_COOKIE = 'device_csrf';

/** The page's policy: nothing but this origin's forms; no script at all. */
const PAGE_POLICY = ["default-src 'none'", "style-src 'unsafe-inline'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"].join('; ');

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function cookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    try {
      out.set(part.slice(0, at).trim(), decodeURIComponent(part.slice(at + 1).trim()));
    } catch {
      // A malformed cookie is no cookie.
    }
  }
  return out;
}

function cookie(name: string, value: string, maxAge?: number): string {
  const secure = (config().PUBLIC_URL ?? '').startsWith('https:') ? '; Secure' : '';
  return `${name}=${encodeURIComponent(value)}; Path=${PATH}; HttpOnly; SameSite=Strict${secure}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
}

async function signedIn(call: BodyRouteCall): Promise<Viewer | null> {
  const token = cookies(call.req.headers.cookie).get(SESSION_COOKIE);
  if (!token) return null;
  try {
    const { viewer } = (await jwtAuthenticator.authenticate(token, null)) ?? { viewer: null };
    return viewer && !viewer.user.is_suspended ? viewer : null;
  } catch {
    return null;
  }
}

/** What a page's forms are bound to: the nonce of its `device_csrf` cookie and its sign-in cookie ('' when none). */
interface Csrf {
  nonce: string;
  session: string;
}

interface View {
  status: number;
  title: string;
  body: string;
  /** What the page's forms are bound to, its nonce set as its cookie; null for a page with no form (the cookie the browser holds is left as it is). */
  csrf: Csrf | null;
  setCookies?: string[];
}

function render(call: BodyRouteCall, view: View): void {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(view.title)} · Agent Platform</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; } .code { font: 600 1.8rem ui-monospace, monospace; letter-spacing: .15em; }
label { display: block; margin: .75rem 0 .25rem; } input[type=text], input[type=password], input[type=email] { width: 100%; padding: .5rem; box-sizing: border-box; }
button { margin-top: 1rem; padding: .5rem 1rem; } .error { color: #b42318; } .muted { color: #57606a; }
form.inline { display: inline; }
</style>
</head>
<body>
<h1>${escape(view.title)}</h1>
${view.body}
</body>
</html>
`;
  call.reply(view.status, html, 'text/html; charset=utf-8', {
    'Content-Security-Policy': PAGE_POLICY,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Set-Cookie': [...(view.csrf === null ? [] : [cookie(CSRF_COOKIE, view.csrf.nonce)]), ...(view.setCookies ?? [])],
  });
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;
/** The CSRF field of a form. */
const csrfField = (csrf: Csrf) => hidden('csrf', formToken(csrf));

/** The sign-in form: bound to no session, since signing in replaces the session rather than acting on it (a browser may hold an old one). */
function signInForm(csrf: Csrf, code: string, error?: string): string {
  return `${error ? `<p class="error" role="alert">${escape(error)}</p>` : ''}
<p>Sign in to approve the login of a device${code ? ` showing <span class="code">${escape(code)}</span>` : ''}.</p>
<form method="post" action="${PATH}">
${csrfField({ ...csrf, session: '' })}${hidden('action', 'signin')}${hidden('code', code)}
<label for="email">E-mail or username</label>
<input id="email" name="email" type="text" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}

function codeForm(csrf: Csrf, error?: string): string {
  return `${error ? `<p class="error" role="alert">${escape(error)}</p>` : ''}
<form method="get" action="${PATH}">
<label for="code">The code your device shows</label>
<input id="code" name="code" type="text" autocomplete="off" autocapitalize="characters" required>
<button type="submit">Continue</button>
</form>
${signOutForm(csrf)}`;
}

function signOutForm(csrf: Csrf): string {
  return `<form method="post" action="${PATH}">${csrfField(csrf)}${hidden('action', 'signout')}<button type="submit">Sign out</button></form>`;
}

async function decisionView(viewer: Viewer, csrf: Csrf, code: string): Promise<View> {
  if (!code) return { status: 200, title: 'Device login', body: codeForm(csrf), csrf };
  try {
    const pending = await pendingUserCode(code);
    const minutes = Math.max(0, Math.round((pending.expires_at.getTime() - Date.now()) / 60000));
    return {
      status: 200,
      title: 'Approve device login',
      csrf,
      body: `<p>Signed in as <strong>${escape(viewer.user.username ?? viewer.user.email)}</strong>.</p>
<p>A device asked to sign in as you at ${escape(pending.created_at.toISOString().replace('T', ' ').slice(0, 16))} UTC. Check that it shows this code:</p>
<p class="code" id="user-code">${escape(pending.user_code)}</p>
<p class="muted">The request expires in about ${minutes} minute${minutes === 1 ? '' : 's'}. Approve only a login you started yourself.</p>
<form class="inline" method="post" action="${PATH}">${csrfField(csrf)}${hidden('code', pending.user_code)}${hidden('action', 'approve')}<button type="submit" id="approve">Approve</button></form>
<form class="inline" method="post" action="${PATH}">${csrfField(csrf)}${hidden('code', pending.user_code)}${hidden('action', 'deny')}<button type="submit" id="deny">Deny</button></form>
${signOutForm(csrf)}`,
    };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return { status: 404, title: 'Device login', body: codeForm(csrf, 'This code is unknown, already used or expired. Check the code on your device, or start the login again.'), csrf };
  }
}

/**
 * The token a form carries: an HMAC under a server key of the nonce in the
 * `device_csrf` cookie and of the sign-in cookie the page was made for. A
 * cookie planted by a sibling site (a known nonce) is of no use without the
 * token only this server makes, and the token a page of one's own shows is
 * for one's own session, not the person's whose browser posts the form.
 */
const formToken = ({ nonce, session }: Csrf) => serverMac('device-login-csrf', `${nonce}\n${session}`);

function validToken(csrf: Csrf, given: string | undefined): boolean {
  if (!csrf.nonce || !given) return false;
  const expected = Buffer.from(formToken(csrf));
  const actual = Buffer.from(given);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** The request's nonce ('' when none) and sign-in cookie. */
function requestCsrf(call: BodyRouteCall): Csrf {
  const jar = cookies(call.req.headers.cookie);
  return { nonce: jar.get(CSRF_COOKIE) ?? '', session: jar.get(SESSION_COOKIE) ?? '' };
}

export const deviceLoginPage: BodyRoute = {
  method: 'GET',
  path: PATH,
  page: true,
  label: 'device_login_page',
  async handle(call) {
    const code = (call.url.searchParams.get('code') ?? '').slice(0, 32);
    const found = requestCsrf(call);
    const csrf = found.nonce ? found : { ...found, nonce: crypto.randomBytes(24).toString('base64url') };
    const viewer = await signedIn(call);
    if (!viewer) return render(call, { status: 200, title: 'Device login', body: signInForm(csrf, normalizeUserCode(code) ? displayUserCode(normalizeUserCode(code)!) : code), csrf });
    render(call, await decisionView(viewer, csrf, code));
  },
};

export const deviceLoginForm: BodyRoute = {
  method: 'POST',
  path: PATH,
  page: true,
  label: 'device_login_page',
  async handle(call) {
    await enforceAuthQuota(call.ip);
    const form = new URLSearchParams((await call.body(16 * 1024, 16 * 1024)).toString('utf8'));
    const csrf = requestCsrf(call);
    const code = (form.get('code') ?? '').slice(0, 32);
    const site = call.req.headers['sec-fetch-site'];
    const action = form.get('action');
    // Signing in acts on no session: its form is bound to none (signInForm); every other form to the page's.
    const bound = action === 'signin' ? { ...csrf, session: '' } : csrf;
    if ((site !== undefined && site !== 'same-origin' && site !== 'none') || !validToken(bound, form.get('csrf') ?? undefined)) {
      // No new nonce: a cross-site post (which carries no SameSite=Strict cookie) would otherwise replace the one of the
      // user's open page, and its next form would fail.
      return render(call, { status: 403, title: 'Device login', body: `<p class="error" role="alert">This form expired or came from another site. Open the page again.</p>`, csrf: null });
    }
    if (action === 'signout') {
      const signedOut = { ...csrf, session: '' };
      return render(call, { status: 200, title: 'Device login', body: signInForm(signedOut, ''), csrf: signedOut, setCookies: [cookie(SESSION_COOKIE, '', 0)] });
    }
    if (action === 'signin') {
      const identifier = (form.get('email') ?? '').trim();
      try {
        const token = await login({ ...(identifier.includes('@') ? { email: identifier } : { username: identifier }), password: form.get('password') ?? '' });
        const viewer = (await jwtAuthenticator.authenticate(token.access_token, null))!.viewer;
        const view = await decisionView(viewer, { ...csrf, session: token.access_token }, code);
        return render(call, { ...view, setCookies: [cookie(SESSION_COOKIE, token.access_token)] });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500 || error.status === 429) throw error;
        return render(call, { status: error.status, title: 'Device login', body: signInForm(csrf, code, error.message), csrf });
      }
    }
    const viewer = await signedIn(call);
    if (!viewer) return render(call, { status: 401, title: 'Device login', body: signInForm(csrf, code, 'Sign in first.'), csrf });
    if (action !== 'approve' && action !== 'deny') return render(call, await decisionView(viewer, csrf, code));
    try {
      const decided = await decideDeviceCode(viewer, code, action === 'approve');
      const approved = decided.status === 'approved';
      return render(call, {
        status: 200,
        title: approved ? 'Device approved' : 'Device login denied',
        csrf,
        body: `<p id="result">${approved ? `The device showing <span class="code">${escape(decided.user_code)}</span> is signed in as you. You can close this window and return to your terminal.` : `The login of the device showing <span class="code">${escape(decided.user_code)}</span> was denied.`}</p>`,
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return render(call, { status: 404, title: 'Device login', body: codeForm(csrf, 'This code is unknown, already used or expired.'), csrf });
    }
  },
};

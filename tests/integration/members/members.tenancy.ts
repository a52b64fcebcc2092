import type { EndpointRow, Target, TenancySetup } from '../../helpers/tenancy';

/**
 * Member and invitation endpoints of the tenancy matrix. `setup` invites one
 * address so the revocation addresses an invitation that exists (a reader
 * must meet 403, not 404); under another organization its id is unknown.
 * The removal and the revocation come last.
 */
const invitations = new Map<string, string>();
const invitationId = (t: Target) => invitations.get(t.org) ?? [...invitations.values()][0];

export const setup: TenancySetup = async (t, sendAsOwner) => {
  const email = `${t.unique()}@example.test`;
  const sent = await sendAsOwner('POST', `/org/${t.org}/members`, { email, role: 'reader' });
  if (sent.status !== 202) throw new Error(`tenancy setup invitation: ${sent.status} ${JSON.stringify(sent.body)}`);
  const listed = await sendAsOwner('GET', `/org/${t.org}/invitations`, undefined);
  invitations.set(t.org, listed.body.find((item: { email: string }) => item.email === email).id);
};

export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/members', path: (t) => `/org/${t.org}/members` },
  { method: 'POST', route: '/org/:org/members', path: (t) => `/org/${t.org}/members`, body: (t) => ({ email: t.memberEmail, role: 'reader' }) },
  { method: 'PATCH', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}`, body: () => ({ role: 'reader' }) },
  { method: 'GET', route: '/org/:org/invitations', path: (t) => `/org/${t.org}/invitations` },
  { method: 'DELETE', route: '/org/:org/members/:user_id', path: (t) => `/org/${t.org}/members/${t.memberId}` },
  { method: 'DELETE', route: '/org/:org/invitations/:id', path: (t) => `/org/${t.org}/invitations/${invitationId(t)}` },
];

import crypto from 'node:crypto';
import { MembershipModel, OrganizationModel, UserModel, type Role } from '../../models';
import { drainBackground } from '../../src/core/background';
import { signup } from '../../src/modules/accounts/signup.service';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  password: string;
  token: string;
  /** The personal organization's key (= username). */
  orgKey: string;
}

export function randomKey(prefix = 't'): string {
  return `${prefix}-${crypto.randomBytes(5).toString('hex')}`;
}

/** A signed-up user with a personal organization (owner), default workspace and project. */
export async function createUser(overrides: { email?: string; full_name?: string } = {}): Promise<TestUser> {
  const username = randomKey('u');
  const email = overrides.email ?? `${username}@example.test`;
  const password = 'correct-horse-battery';
  const result = await signup({ email, password, username, full_name: overrides.full_name ?? null, accept_terms: true }, null);
  // Signup mails a verification link after its reply: written now, so it never lands inside a later measurement.
  await drainBackground();
  return { id: result.id, email, username: result.username, password, token: result.access_token!, orgKey: result.username };
}

/** Adds an existing user to an organization with a role. */
export async function addMember(orgKey: string, user: TestUser, role: Role): Promise<void> {
  const org = await OrganizationModel.findOne({ where: { key: orgKey } });
  await MembershipModel.create({ organization_id: org!.id, user_id: user.id, role });
}

/** An organization owned by `owner` plus users for each other role. */
export async function createOrgWithRoles(): Promise<{ owner: TestUser; contributor: TestUser; reader: TestUser; outsider: TestUser; orgKey: string }> {
  const [owner, contributor, reader, outsider] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
  await addMember(owner.orgKey, contributor, 'contributor');
  await addMember(owner.orgKey, reader, 'reader');
  return { owner, contributor, reader, outsider, orgKey: owner.orgKey };
}

export async function findUser(id: string): Promise<UserModel> {
  return (await UserModel.findByPk(id))!;
}

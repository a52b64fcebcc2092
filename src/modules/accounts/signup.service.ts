import crypto from 'node:crypto';
import { Op, UniqueConstraintError } from 'sequelize';
import { OrganizationModel, UserModel } from '../../../models';
import { config } from '../../config/config';
import { AlreadyExistsError, AuthenticationError, InvalidError } from '../../core/errors';
import { database } from '../../db/database';
import { signAccessToken } from './jwt';
import { createPersonalOrganization } from '../organizations/organizations.service';
import { SLUG_PATTERN } from '../workspaces/workspaces.inputs';
import type { SignupInput } from './accounts.inputs';
import type { SignupUserResponse } from './accounts.types';
import { queueVerificationMail } from './email-verification.service';
import { hashPassword } from './password';


/** The e-mail's local part as a slug, at least 3 characters. */
export function usernameBase(email: string): string {
  const local = email.split('@')[0].toLowerCase();
  const slug = local.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32).replace(/-+$/, '');
  if (slug.length >= 3) return slug;
  return `${slug || 'user'}-user`.slice(0, 32);
}

/** `base-` and six random lower-case letters or digits: what a signup that lost the race for base-N tries next. */
function randomUsername(base: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let suffix = '';
  for (const byte of crypto.randomBytes(6)) suffix += alphabet[byte % alphabet.length];
  return `${base}-${suffix}`;
}

/** Attempts at a generated username: base-N first, then random suffixes (a clash among 36^6 is negligible). */
const USERNAME_ATTEMPTS = 6;

/** Picks base, base-2, base-3… free both as a username and as an organization key. */
async function uniqueUsername(base: string): Promise<string> {
  // Only base and base-N can clash; the base is a slug, so it is safe inside the pattern.
  const clash = { [Op.regexp]: `^${base}(-[0-9]+)?$` };
  const [users, orgs] = await Promise.all([
    UserModel.findAll({ attributes: ['username'], where: { username: clash } }),
    OrganizationModel.findAll({ attributes: ['key'], where: { key: clash } }),
  ]);
  const taken = new Set([...users.map((row) => row.username.toLowerCase()), ...orgs.map((row) => row.key.toLowerCase())]);
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function checkCaptcha(token: string | null, email: string): void {
  const secret = config().CAPTCHA_SECRET;
  if (!secret) return;
  // The captcha front service signs the e-mail with the shared secret.
  const expected = crypto.createHmac('sha256', secret).update(email.toLowerCase()).digest('hex');
  const given = Buffer.from(token ?? '');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, Buffer.from(expected))) {
    throw new AuthenticationError('Captcha verification failed', 'token_error');
  }
}

export async function signup(input: SignupInput, captchaToken: string | null): Promise<SignupUserResponse> {
  if (input.accept_terms === false) throw new InvalidError('The terms of service must be accepted');
  checkCaptcha(captchaToken, input.email);
  const email = input.email.trim();
  let username: string;
  if (input.username != null) {
    username = input.username.trim().toLowerCase();
    if (username.length < 3 || username.length > 39 || !SLUG_PATTERN.test(username)) {
      throw new InvalidError(
        'Username must be 3 to 39 lower-case letters, digits or single hyphens',
        'invalid_username_error',
      );
    }
  }
  if (await UserModel.findOne({ where: { email } })) throw new AlreadyExistsError('An account with this e-mail already exists');
  if (input.username != null) {
    const taken = await Promise.all([UserModel.findOne({ where: { username: username! } }), OrganizationModel.findOne({ where: { key: username! } })]);
    if (taken.some(Boolean)) throw new AlreadyExistsError(`The username '${username!}' is taken`);
  }
  const passwordHash = await hashPassword(input.password);
  const requiresVerification = config().REQUIRE_EMAIL_VERIFICATION;
  const create = (name: string) =>
    database().transaction(async (transaction) => {
      const created = await UserModel.create(
        {
          email,
          username: name,
          full_name: input.full_name ?? null,
          password_hash: passwordHash,
          email_opt_in: input.email_opt_in ?? false,
          // Only a mailed link verifies the address (email-verification.service), never signup itself.
          email_verified_at: null,
        },
        { transaction },
      );
      await createPersonalOrganization(created, transaction);
      return created;
    });
  let user: UserModel;
  if (input.username != null) {
    user = await create(username!);
  } else {
    // A generated name can be taken by a concurrent signup between the check and the insert (every signup
    // sharing the local part computes the same base-N): the losers retry with a random suffix. A clash on
    // the e-mail itself is not retried: it is the 409 of a duplicate address.
    const base = usernameBase(email);
    for (let attempt = 1; ; attempt += 1) {
      try {
        user = await create(attempt === 1 ? await uniqueUsername(base) : randomUsername(base));
        break;
      } catch (error) {
        const lostRace = error instanceof UniqueConstraintError && !('email' in (error.fields ?? {}));
        if (!lostRace || attempt >= USERNAME_ATTEMPTS) throw error;
      }
    }
  }
  queueVerificationMail(user);
  return {
    id: user.id,
    username: user.username,
    email_address: user.email,
    access_token: requiresVerification ? null : signAccessToken(user),
    requires_verification: requiresVerification,
  };
}

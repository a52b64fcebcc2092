import jwt from 'jsonwebtoken';
import { jwtSecret } from '../../src/core/secrets';
import { verifyAccessToken } from '../../src/modules/accounts/jwt';
import { AuthenticationError } from '../../src/core/errors';

/** Verified signatures are remembered per token text; expiry is still checked on every use. */
describe('verifyAccessToken', () => {
  const sign = (claims: object, seconds: number) => jwt.sign(claims, jwtSecret(), { algorithm: 'HS256', subject: '00000000-0000-4000-8000-000000000001', expiresIn: seconds });
  const failure = (token: string) => {
    try {
      verifyAccessToken(token);
      return null;
    } catch (error) {
      return error instanceof AuthenticationError ? error.type : String(error);
    }
  };

  afterEach(() => jest.restoreAllMocks());

  it('answers a remembered token until it expires, then expired_token_error', () => {
    const token = sign({ tv: 3 }, 60);
    expect(verifyAccessToken(token)).toEqual({ sub: '00000000-0000-4000-8000-000000000001', tv: 3 });
    expect(verifyAccessToken(token)).toEqual({ sub: '00000000-0000-4000-8000-000000000001', tv: 3 });
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    expect(failure(token)).toBe('expired_token_error');
    expect(failure(token)).toBe('expired_token_error');
  });

  it('refuses expired, tampered and foreign tokens as before', () => {
    expect(failure(sign({ tv: 0 }, -10))).toBe('expired_token_error');
    const good = sign({ tv: 0 }, 60);
    verifyAccessToken(good);
    const [header, payload, signature] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), tv: 9 })).toString('base64url');
    expect(failure(`${header}.${forged}.${signature}`)).toBe('token_error');
    expect(failure(jwt.sign({ tv: 0 }, 'another secret', { algorithm: 'HS256', subject: 'x', expiresIn: 60 }))).toBe('token_error');
    expect(failure(sign({ other: 1 }, 60))).toBe('token_error');
  });

  it('refuses a token without an expiry, even signed with the secret: the server signs none', () => {
    const forever = jwt.sign({ tv: 0 }, jwtSecret(), { algorithm: 'HS256', subject: '00000000-0000-4000-8000-000000000001' });
    expect(failure(forever)).toBe('token_error');
    expect(failure(forever)).toBe('token_error');
  });
});

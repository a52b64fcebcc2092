import type { UserModel } from '../../../models';
import { signAccessToken } from './jwt';
import { membershipsOf, personalOrganization } from '../organizations/organizations.service';
import type { AccessTokenResponse } from './accounts.types';

/** A fresh JWT for the user, with the personal organization as default_org and the first 100 memberships in orgs (GET /user/organizations pages through all). */
export async function accessTokenResponse(user: UserModel): Promise<AccessTokenResponse> {
  const memberships = await membershipsOf(user.id);
  const personal = personalOrganization(user, memberships);
  return {
    access_token: signAccessToken(user),
    default_org: personal ? { key: personal.key, name: personal.name } : null,
    orgs: memberships.map(({ org }) => ({ key: org.key, name: org.name })),
  };
}

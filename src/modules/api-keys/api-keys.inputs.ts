import { ArrayMaxSize, MaxLength } from 'class-validator';
import { Field } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';

export const MAX_KEY_SCOPES = 100;

@ApiInput('CreateApiKeyInput', { example: { name: 'CI exporter', allowed_scopes: ['traces:write'] }, description: "A new API key's label and limits." })
export class CreateApiKeyInput {
  @Field(() => String, { nullable: true, description: 'A label for the key.' })
  @MaxLength(255)
  name?: string | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'Whether the key may revoke itself (DELETE /user/api-keys/self).' })
  allow_self_revoke?: boolean | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Limit the key to this organization (the caller must belong to it).' })
  org_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Limit the key to this workspace (and its organization).' })
  workspace_id?: string | null;

  @Field(() => [String], {
    nullable: true,
    description:
      'Limit the key to these permission scopes (on top of the role); null means every scope of the role, [] a read-only key. Unknown scopes are 422 enum.',
  })
  @ArrayMaxSize(MAX_KEY_SCOPES)
  allowed_scopes?: string[] | null;
}

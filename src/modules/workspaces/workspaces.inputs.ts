import { Matches, MaxLength, MinLength } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { Visible } from '../../core/validation/visible-text';

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SLUG_MESSAGE = 'must be a URL slug: lower-case letters, digits and single hyphens';

@ApiInput('CreateWorkspaceInput', { example: { key: 'research', name: 'Research', description: 'Red-team experiments' }, description: 'A new workspace.' })
export class CreateWorkspaceInput {
  @Field(() => String, { description: 'Unique workspace key in the organization (URL slug, 3 to 100 characters).' })
  @MinLength(3)
  @MaxLength(100)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  key: string;

  @Field(() => String, { description: 'Display name, 3 to 100 characters.' })
  @MinLength(3)
  @MaxLength(100)
  @Visible()
  name: string;

  @Field(() => String, { nullable: true, description: 'Description, at most 1000 characters.' })
  @MaxLength(1000)
  description?: string | null;
}

@ApiInput('UpdateWorkspaceInput', { description: 'Changes to a workspace: an absent field stays as it is.' })
export class UpdateWorkspaceInput {
  @Field(() => String, { nullable: true, description: 'New description, at most 1000 characters; null clears it.' })
  @MaxLength(1000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Activate or deactivate the workspace (the default workspace cannot be deactivated: 400); null leaves it unchanged.' })
  is_active?: boolean | null;

  @Field(() => String, { nullable: true, description: 'New workspace key (URL slug, 3 to 100 characters, unique in the organization); null leaves it unchanged.' })
  @MinLength(3)
  @MaxLength(100)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  key?: string | null;

  @Field(() => String, { nullable: true, description: 'New display name, 3 to 100 characters; null leaves it unchanged.' })
  @MinLength(3)
  @MaxLength(100)
  @Visible()
  name?: string | null;
}

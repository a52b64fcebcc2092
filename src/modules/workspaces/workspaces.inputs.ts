import { Matches, MaxLength, MinLength } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SLUG_MESSAGE = 'must be a URL slug: lower-case letters, digits and single hyphens';

@ApiInput('CreateWorkspaceInput')
export class CreateWorkspaceInput {
  @Field(() => String, { description: 'Unique workspace key in the organization (URL slug, 3 to 100 characters).' })
  @MinLength(3)
  @MaxLength(100)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  key: string;

  @Field(() => String)
  @MinLength(3)
  @MaxLength(100)
  name: string;

  @Field(() => String, { nullable: true })
  @MaxLength(1000)
  description?: string | null;
}

@ApiInput('UpdateWorkspaceInput')
export class UpdateWorkspaceInput {
  @Field(() => String, { nullable: true })
  @MaxLength(1000)
  description?: string | null;

  @Field(() => Boolean, { nullable: true })
  is_active?: boolean | null;

  @Field(() => String, { nullable: true })
  @MinLength(3)
  @MaxLength(100)
  @Matches(SLUG_PATTERN, { message: SLUG_MESSAGE })
  key?: string | null;

  @Field(() => String, { nullable: true })
  @MinLength(3)
  @MaxLength(100)
  name?: string | null;
}

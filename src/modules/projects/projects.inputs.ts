import { Matches, MaxLength, MinLength } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { Visible } from '../../core/validation/visible-text';
import { SLUG_PATTERN } from '../workspaces/workspaces.inputs';

@ApiInput('CreateProjectInput', { example: { key: 'prompt-leaks', name: 'Prompt leaks', description: 'System-prompt extraction studies' }, description: 'A new project.' })
export class CreateProjectInput {
  @Field(() => String, { description: 'Display name, 1 to 255 characters.' })
  @MinLength(1)
  @MaxLength(255)
  @Visible()
  name: string;

  @Field(() => String, { description: 'Unique project key in the workspace (URL slug, 3 to 100 characters).' })
  @MinLength(3)
  @MaxLength(100)
  @Matches(SLUG_PATTERN, { message: 'must be a URL slug: lower-case letters, digits and single hyphens' })
  key: string;

  @Field(() => String, { nullable: true, description: 'Description, at most 1000 characters.' })
  @MaxLength(1000)
  description?: string | null;
}

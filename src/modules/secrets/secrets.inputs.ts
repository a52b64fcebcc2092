import { Matches, MaxLength, MinLength } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { SecretProvider, type SecretProviderName } from './secret-presets';

/** An environment-variable name, as POSIX shells accept it. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_SECRET_NAME_LENGTH = 255;
/** Characters (UTF-16 code units, as JSON strings count them) of a secret's value. */
export const MAX_SECRET_VALUE_LENGTH = 65_536;

const NAME_MESSAGE = 'name must be an environment-variable name: a letter or _, then letters, digits or _';

@ApiInput('CreateUserSecretInput', { example: { name: 'MY_SERVICE_TOKEN', value: 'tok-0123456789abcdef' }, description: 'A new secret: its name and value.' })
export class CreateUserSecretInput {
  @Field(() => String, { description: `An environment-variable name (letters, digits and _, not starting with a digit), 1 to ${MAX_SECRET_NAME_LENGTH} characters, unique per user.` })
  @MinLength(1)
  @MaxLength(MAX_SECRET_NAME_LENGTH)
  @Matches(SECRET_NAME_PATTERN, { message: NAME_MESSAGE })
  name: string;

  @Field(() => String, { description: `The value, 1 to ${MAX_SECRET_VALUE_LENGTH} characters; stored encrypted and never returned.` })
  @MinLength(1)
  @MaxLength(MAX_SECRET_VALUE_LENGTH)
  value: string;
}

@ApiInput('CreatePresetSecretInput', { example: { provider: 'openai', value: 'sk-0123456789abcdef' }, description: "A provider's secret, named after the provider's environment variable." })
export class CreatePresetSecretInput {
  @Field(() => SecretProvider, { description: 'The provider; the secret is named after its environment variable (`GET /user/secrets/presets`).' })
  provider: SecretProviderName;

  @Field(() => String, { description: `The value, 1 to ${MAX_SECRET_VALUE_LENGTH} characters; stored encrypted and never returned.` })
  @MinLength(1)
  @MaxLength(MAX_SECRET_VALUE_LENGTH)
  value: string;
}

@ApiInput('UpdateUserSecretInput', { example: { value: 'sk-fedcba9876543210' }, description: "A secret's new value (the name never changes)." })
export class UpdateUserSecretInput {
  @Field(() => String, { description: `The new value, 1 to ${MAX_SECRET_VALUE_LENGTH} characters; stored encrypted and never returned.` })
  @MinLength(1)
  @MaxLength(MAX_SECRET_VALUE_LENGTH)
  value: string;
}

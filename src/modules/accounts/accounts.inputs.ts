import { IsDefined, MaxLength, ValidateIf } from 'class-validator';
import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { EmailAddress } from '../../core/validation/email';
import { NewPassword } from './password-policy';

@ApiInput('SignupInput', { example: { email: 'ada@example.com', password: 'correct horse battery staple', username: 'ada', full_name: 'Ada Lovelace', accept_terms: true }, description: "The new account's details." })
export class SignupInput {
  @Field(() => String, { description: 'The e-mail address to sign up with; unique across accounts (409 when taken).' })
  @EmailAddress()
  email: string;

  @Field(() => String, { description: 'At least 8 characters, not only whitespace, not a common password.' })
  @NewPassword()
  password: string;

  @Field(() => Boolean, { nullable: true, defaultValue: true, description: 'Must not be false (400 `invalid_error`); defaults to true.' })
  accept_terms?: boolean;

  @Field(() => Boolean, { nullable: true, description: 'Whether the user agrees to receive product e-mail; false when absent.' })
  email_opt_in?: boolean | null;

  @Field(() => String, { nullable: true, description: "The user's full name, at most 255 characters; also names the personal organization." })
  @MaxLength(255)
  full_name?: string | null;

  @Field(() => String, { nullable: true, description: 'Accepted for client compatibility and ignored.' })
  @MaxLength(255)
  group_code?: string | null;

  @Field(() => String, { nullable: true, description: 'Accepted for client compatibility and ignored.' })
  @MaxLength(2048)
  next_url?: string | null;

  @Field(() => String, { nullable: true, description: 'Lower-case slug, 3 to 39 characters; defaults to the e-mail local part.' })
  @MaxLength(255)
  username?: string | null;
}

@ApiInput('LoginInput', { example: { email: 'ada@example.com', password: 'correct horse battery staple' }, description: 'Credentials: `email` or `username` (one is required) and the password.' })
export class LoginInput {
  @Field(() => String, { nullable: true, description: 'E-mail address (a username is accepted here too).' })
  @ValidateIf((input: LoginInput) => input.username == null)
  @IsDefined({ message: 'Field required' })
  @MaxLength(320)
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'Username; used when `email` is absent.' })
  @MaxLength(320)
  username?: string | null;

  @Field(() => String, { description: "The account's password." })
  @MaxLength(1024)
  password: string;
}

@ApiInput('ForgotPasswordInput', { description: 'The address to mail a password reset link to.' })
export class ForgotPasswordInput {
  @Field(() => String, { description: "The account's e-mail address." })
  @EmailAddress('lookup')
  email: string;
}

@ApiInput('ResetPasswordInput', { description: 'A reset token and the new password.' })
export class ResetPasswordInput {
  @Field(() => String, { description: "The account's e-mail address." })
  @EmailAddress('lookup')
  email: string;

  @Field(() => String, { description: 'The new password: at least 8 characters, not only whitespace, not a common password.' })
  @NewPassword()
  password: string;

  @Field(() => String, { description: 'The reset token from the e-mail.' })
  @MaxLength(512)
  token: string;
}

@ApiInput('VerifyEmailInput', { description: 'A verification token mailed at signup.' })
export class VerifyEmailInput {
  @Field(() => String, { description: 'The verification token from the e-mail.' })
  @MaxLength(512)
  token: string;
}

@ApiInput('ResendVerificationInput', { description: 'The address to mail a new verification link to.' })
export class ResendVerificationInput {
  @Field(() => String, { description: "The account's e-mail address." })
  @EmailAddress('lookup')
  email: string;
}

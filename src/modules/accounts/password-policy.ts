import { dictionary } from '@zxcvbn-ts/language-common';
import { MaxLength, MinLength, ValidateBy } from 'class-validator';

/**
 * What a new password must be, wherever one is set (signup, reset): 8 to
 * 1024 characters, not only whitespace, and not one of the ~49,000 most
 * common passwords of zxcvbn-ts's list (compared without case and outer
 * spaces, so `Password` and ` 12345678 ` are refused too). A refusal is a
 * 422 item at the field (`string_too_short`, `string_too_long`, or
 * `value_error` for the other two rules).
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

let common: Set<string> | undefined;

function isCommon(password: string): boolean {
  common ??= new Set(dictionary['passwords-common']);
  return common.has(password.trim().toLowerCase());
}

/** Why a password of acceptable length is refused, or null. Length is MinLength's and MaxLength's to report. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) return null;
  if (password.trim() === '') return 'Password must not consist only of whitespace';
  if (isCommon(password)) return 'Password is too common; choose one that is harder to guess';
  return null;
}

/** The password rules as one class-validator decorator for every input that sets a password. */
export function NewPassword(): PropertyDecorator {
  const rules = [
    MinLength(PASSWORD_MIN_LENGTH, { message: `Password should have at least ${PASSWORD_MIN_LENGTH} characters` }),
    MaxLength(PASSWORD_MAX_LENGTH),
    ValidateBy({
      name: 'acceptablePassword',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || passwordProblem(value) === null,
        defaultMessage: (args) => passwordProblem(String(args?.value ?? '')) ?? 'Password is not acceptable',
      },
    }),
  ];
  return (target, property) => {
    for (const rule of rules) rule(target, property);
  };
}

import { IsEmail, Matches, MaxLength } from 'class-validator';

/**
 * An e-mail address as accounts and invitations take it: at most 320
 * characters, well formed, and ASCII. Addresses are compared without case
 * (`users.email` is citext, invitations are stored lower-case), and
 * case-folding maps some other characters onto ASCII letters (the Kelvin
 * sign U+212A onto `k`): an address spelled with one would be the same
 * account as the ASCII one, while mail went to the look-alike. An
 * internationalized domain is written in its `xn--` form.
 */
export function EmailAddress(): PropertyDecorator {
  const rules = [
    MaxLength(320),
    IsEmail({}, { message: 'value is not a valid email address' }),
    Matches(/^[!-~]+$/, { message: 'value is not a valid email address: write it in ASCII (an internationalized domain in its xn-- form)', context: { type: 'value_error' } }),
  ];
  return (target, property) => rules.forEach((rule) => rule(target, property));
}

import { IsEmail, Matches, MaxLength } from 'class-validator';

/**
 * An e-mail address as accounts and invitations take it: at most 320
 * characters, well formed, and ASCII. Addresses are compared without case
 * (`users.email` is citext, invitations are stored lower-case), and
 * case-folding maps some other characters onto ASCII letters (the Kelvin
 * sign U+212A onto `k`): an address spelled with one would be the same
 * account as the ASCII one, while mail went to the look-alike. An
 * internationalized domain is written in its `xn--` form. Only a new
 * address (signup, an invitation) must be ASCII.
 */
export function EmailAddress(use: 'new' | 'lookup' = 'new'): PropertyDecorator {
  const rules = [
    MaxLength(320),
    IsEmail({}, { message: 'value is not a valid email address' }),
  ];
  // An address looked up (a reset, a new verification mail) only finds an account: mail goes to the stored address,
  // and an account made before the ASCII rule can still recover itself.
  if (use === 'new') rules.push(
    Matches(/^[^\u0080-\uffff]*$/, { message: 'value is not a valid email address: write it in ASCII (an internationalized domain in its xn-- form)', context: { type: 'value_error' } }),
  );
  return (target, property) => rules.forEach((rule) => rule(target, property));
}

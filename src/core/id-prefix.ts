import { isUuid } from './scalars';

/**
 * Resources named in paths by a full UUID (any case) or a unique prefix of
 * its lower-case form (sessions from 4 characters, evaluations from 8): the
 * id range a reference covers. A full UUID is itself; a prefix covers
 * prefix+000… to prefix+fff…, which a primary key index answers directly.
 * Null when it cannot be a prefix of any id.
 */
const UUID_TEMPLATE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

export function idRange(ref: string): [string, string] | null {
  const full: boolean = isUuid(ref);
  if (full) return [ref.toLowerCase(), ref.toLowerCase()];
  if (ref.length > UUID_TEMPLATE.length) return null;
  for (let index = 0; index < ref.length; index += 1) {
    const char = ref[index];
    if (UUID_TEMPLATE[index] === '-' ? char !== '-' : !/[0-9a-f]/.test(char)) return null;
  }
  const rest = UUID_TEMPLATE.slice(ref.length);
  return [ref + rest.replace(/x/g, '0'), ref + rest.replace(/x/g, 'f')];
}

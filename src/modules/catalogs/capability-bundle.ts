import crypto from 'node:crypto';
import { ValidationError, type ValidationItem } from '../../core/errors';
import type { PublishCapabilityRequest } from './catalogs.inputs';
import { isPlainObject } from '../../core/validation/coerce';
import { bundlePathProblem } from './capability-file-rules';
import { ComponentType, type CapabilityComponentDetail, type CapabilityFileEntry, type CapabilitySecretRequirement } from './catalogs.types';
import { MAX_TAG_LENGTH, MAX_TAGS } from './catalogs.limits';

/**
 * A capability upload turned into what is stored: each file decoded with its
 * sha256 and size, the bundle's `artifact_sha256`, a `runtime_digest` that does
 * not depend on the order of the files, and the components and secrets the
 * manifest declares, validated (every problem reported at once, at its `loc`).
 */
export interface CapabilityBundle {
  files: (CapabilityFileEntry & { content: Buffer })[];
  artifact_sha256: string;
  runtime_digest: string;
  components: CapabilityComponentDetail[];
  component_counts: Record<string, number>;
  secrets: CapabilitySecretRequirement[];
  author_name: string | null;
  license: string | null;
  keywords: string[];
  origin: Record<string, unknown>;
  description: string | null;
}

const COMPONENT_TYPES = Object.values(ComponentType) as string[];
/** Secrets a manifest may declare. */
const MAX_SECRETS = 100;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest('hex');

/** A published file as stored (capabilities, datasets): its bytes decoded, with the sha256 and size the server computes. */
export function publishedFile(file: { path: string; content_base64: string }): CapabilityFileEntry & { content: Buffer } {
  const content = Buffer.from(file.content_base64, 'base64');
  return { path: file.path, sha256: sha256(content), size_bytes: content.length, content };
}

/** JSON with object keys sorted, so equal manifests hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function optionalString(manifest: Record<string, unknown>, key: string, errors: ValidationItem[], max = 255): string | null {
  const value = manifest[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.push({ loc: ['input', 'manifest', key], msg: 'Input should be a valid string', type: 'string_type' });
    return null;
  }
  if (value.length > max) errors.push({ loc: ['input', 'manifest', key], msg: `String should have at most ${max} characters`, type: 'string_too_long' });
  return value;
}

/** Every file path and every directory above one: what a component's path may name (one look-up each). */
function namedPaths(paths: string[]): Set<string> {
  const named = new Set<string>();
  for (const path of paths) {
    named.add(path);
    for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) named.add(path.slice(0, slash));
  }
  return named;
}

function readComponents(manifest: Record<string, unknown>, paths: string[], errors: ValidationItem[]): CapabilityComponentDetail[] {
  const raw = manifest.components;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ loc: ['input', 'manifest', 'components'], msg: 'Input should be a valid list', type: 'list_type' });
    return [];
  }
  const out: CapabilityComponentDetail[] = [];
  const seen = new Set<string>();
  const named = namedPaths(paths);
  raw.forEach((item, index) => {
    const loc = ['input', 'manifest', 'components', index];
    if (!isPlainObject(item)) {
      errors.push({ loc, msg: 'Input should be a valid dictionary', type: 'dict_type' });
      return;
    }
    const before = errors.length;
    for (const key of ['name', 'path', 'type']) {
      if (item[key] === undefined || item[key] === null) errors.push({ loc: [...loc, key], msg: 'Field required', type: 'missing' });
      else if (typeof item[key] !== 'string' || item[key] === '') errors.push({ loc: [...loc, key], msg: 'Input should be a non-empty string', type: 'string_type' });
    }
    if (typeof item.type === 'string' && item.type && !COMPONENT_TYPES.includes(item.type)) {
      errors.push({ loc: [...loc, 'type'], msg: `Input should be ${COMPONENT_TYPES.map((type) => `'${type}'`).join(', ')}`, type: 'enum' });
    }
    if (typeof item.path === 'string' && item.path) {
      const problem = bundlePathProblem(item.path);
      if (problem) {
        errors.push({ loc: [...loc, 'path'], msg: `path ${problem}`, type: 'value_error' });
      } else if (!named.has(item.path)) {
        errors.push({ loc: [...loc, 'path'], msg: 'must name a published file or directory', type: 'value_error' });
      }
    }
    if (item.description !== undefined && item.description !== null && typeof item.description !== 'string') {
      errors.push({ loc: [...loc, 'description'], msg: 'Input should be a valid string', type: 'string_type' });
    }
    if (item.metadata !== undefined && item.metadata !== null && !isPlainObject(item.metadata)) {
      errors.push({ loc: [...loc, 'metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    }
    // Only text names a component (an object here is already refused above, and may not even convert to text).
    if (typeof item.type === 'string' && typeof item.name === 'string') {
      const key = `${item.type}:${item.name}`;
      if (errors.length === before && seen.has(key)) errors.push({ loc: [...loc, 'name'], msg: 'duplicate component name for its type', type: 'value_error' });
      seen.add(key);
    }
    if (errors.length > before) return;
    out.push({
      name: item.name as string,
      path: item.path as string,
      type: item.type as string,
      description: (item.description as string | null | undefined) ?? null,
      metadata: (item.metadata as Record<string, unknown> | null | undefined) ?? null,
    });
  });
  return out;
}

function readSecrets(manifest: Record<string, unknown>, errors: ValidationItem[]): CapabilitySecretRequirement[] {
  const raw = manifest.secrets;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ loc: ['input', 'manifest', 'secrets'], msg: 'Input should be a valid list', type: 'list_type' });
    return [];
  }
  if (raw.length > MAX_SECRETS) {
    errors.push({ loc: ['input', 'manifest', 'secrets'], msg: `List should have at most ${MAX_SECRETS} items`, type: 'too_long' });
    return [];
  }
  const out: CapabilitySecretRequirement[] = [];
  const names = new Set<string>();
  raw.forEach((item, index) => {
    const loc = ['input', 'manifest', 'secrets', index];
    const secret = typeof item === 'string' ? { name: item, required: true } : isPlainObject(item) ? { name: item.name, required: item.required ?? true } : null;
    if (!secret) {
      errors.push({ loc, msg: 'Input should be a secret name or {name, required}', type: 'value_error' });
      return;
    }
    const nameLoc = typeof item === 'string' ? loc : [...loc, 'name'];
    if (typeof secret.name !== 'string' || !SECRET_NAME.test(secret.name)) {
      errors.push({ loc: nameLoc, msg: 'must be an environment-variable name (letters, digits and _, not starting with a digit)', type: 'value_error' });
      return;
    }
    if (typeof secret.required !== 'boolean') {
      errors.push({ loc: [...loc, 'required'], msg: 'Input should be a valid boolean', type: 'bool_parsing' });
      return;
    }
    if (names.has(secret.name)) {
      errors.push({ loc: nameLoc, msg: 'duplicate secret name', type: 'value_error' });
      return;
    }
    names.add(secret.name);
    out.push({ name: secret.name, required: secret.required });
  });
  return out;
}

function readKeywords(manifest: Record<string, unknown>, errors: ValidationItem[]): string[] {
  const raw = manifest.keywords ?? manifest.tags;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'string') || raw.length > MAX_TAGS) {
    errors.push({ loc: ['input', 'manifest', 'keywords'], msg: `Input should be a list of at most ${MAX_TAGS} strings`, type: 'list_type' });
    return [];
  }
  // As tags are: a keyword is listed with every capability of a list.
  const long = (raw as string[]).findIndex((item) => item.length > MAX_TAG_LENGTH);
  if (long >= 0) {
    errors.push({ loc: ['input', 'manifest', 'keywords', long], msg: `String should have at most ${MAX_TAG_LENGTH} characters`, type: 'string_too_long' });
    return [];
  }
  return [...new Set(raw as string[])];
}

function readAuthor(manifest: Record<string, unknown>, errors: ValidationItem[]): string | null {
  const author = manifest.author;
  if (isPlainObject(author)) {
    if (typeof author.name === 'string') return author.name.slice(0, 255);
    errors.push({ loc: ['input', 'manifest', 'author', 'name'], msg: 'Input should be a valid string', type: 'string_type' });
    return null;
  }
  return optionalString(manifest, 'author', errors);
}

export function buildCapabilityBundle(input: PublishCapabilityRequest): CapabilityBundle {
  const errors: ValidationItem[] = [];
  const files = input.files.map(publishedFile);
  const manifest = input.manifest;
  const components = readComponents(manifest, files.map((file) => file.path), errors);
  const secrets = readSecrets(manifest, errors);
  const keywords = readKeywords(manifest, errors);
  const author_name = readAuthor(manifest, errors);
  const license = optionalString(manifest, 'license', errors, 100);
  const manifestDescription = optionalString(manifest, 'description', errors, 10_000);
  const origin = manifest.origin;
  if (origin !== undefined && origin !== null && !isPlainObject(origin)) {
    errors.push({ loc: ['input', 'manifest', 'origin'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  }
  if (errors.length) throw new ValidationError(errors);

  // The bundle as uploaded: the manifest, then each file's path, size and bytes in upload order.
  const bundle = crypto.createHash('sha256').update(canonicalJson(manifest)).update('\0');
  for (const file of files) bundle.update(`${file.path}\0${file.size_bytes}\0`).update(file.content);
  // What runs: the manifest and the files sorted by path, so the order of upload does not matter.
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const runtime = canonicalJson({ manifest, files: sorted.map((file) => [file.path, file.sha256, file.size_bytes]) });
  const component_counts: Record<string, number> = {};
  for (const component of components) component_counts[component.type] = (component_counts[component.type] ?? 0) + 1;
  return {
    files,
    artifact_sha256: bundle.digest('hex'),
    runtime_digest: `sha256:${sha256(runtime)}`,
    components,
    component_counts,
    secrets,
    author_name,
    license,
    keywords,
    origin: (origin as Record<string, unknown> | undefined) ?? {},
    description: input.description ?? manifestDescription,
  };
}

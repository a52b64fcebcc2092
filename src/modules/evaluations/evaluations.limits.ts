import { MAX_FREE_FORM_JSON_BYTES } from '../../core/validation/json-bytes';

/** Bounds a request's input and a reply's lists share (a reply holds no more than a request may give). */

/** Task names one evaluation may be created with. */
export const MAX_TASK_NAMES = 10_000;

/** User secrets one evaluation may name. */
export const MAX_SECRET_IDS = 1000;

/**
 * The most a run configuration (config_json) holds as JSON: its two
 * free-form objects (task_config, model_overrides), its secret ids (a
 * quoted UUID and a comma each) and 16 KiB for the rest (eight texts of at
 * most 255 characters, each escaped at worst to 6 bytes a character, and
 * numbers). What its GraphQL fields are priced at (@MaxBytes).
 */
export const MAX_RUN_CONFIGURATION_BYTES = 2 * MAX_FREE_FORM_JSON_BYTES + MAX_SECRET_IDS * 39 + 16 * 1024;

import { registerEnumType } from 'type-graphql';

/**
 * The provider presets, declared once: a preset names the environment
 * variable its provider's SDKs read, which becomes the secret's name.
 * Adding a provider is one row here (the GraphQL enum, the OpenAPI enum and
 * `GET /user/secrets/presets` follow).
 */
export const SECRET_PRESETS = [
  { provider: 'openai', env_var_name: 'OPENAI_API_KEY', label: 'OpenAI' },
  { provider: 'anthropic', env_var_name: 'ANTHROPIC_API_KEY', label: 'Anthropic' },
  { provider: 'google', env_var_name: 'GEMINI_API_KEY', label: 'Google Gemini' },
  { provider: 'mistral', env_var_name: 'MISTRAL_API_KEY', label: 'Mistral AI' },
  { provider: 'groq', env_var_name: 'GROQ_API_KEY', label: 'Groq' },
  { provider: 'together', env_var_name: 'TOGETHER_API_KEY', label: 'Together AI' },
  { provider: 'openrouter', env_var_name: 'OPENROUTER_API_KEY', label: 'OpenRouter' },
  { provider: 'huggingface', env_var_name: 'HF_TOKEN', label: 'Hugging Face' },
] as const;

export type SecretProviderName = (typeof SECRET_PRESETS)[number]['provider'];
export type SecretPreset = (typeof SECRET_PRESETS)[number];

/** The enum object type-graphql registers: each provider's name as its value. */
export const SecretProvider = Object.fromEntries(SECRET_PRESETS.map((preset) => [preset.provider, preset.provider])) as {
  [P in SecretProviderName]: P;
};

registerEnumType(SecretProvider, {
  name: 'SecretProvider',
  description: 'A model provider with a secret preset (`GET /user/secrets/presets`).',
  valuesConfig: Object.fromEntries(
    SECRET_PRESETS.map((preset) => [preset.provider, { description: `${preset.label}: the secret is named \`${preset.env_var_name}\`.` }]),
  ) as Record<SecretProviderName, { description: string }>,
});

export function presetOf(provider: SecretProviderName): SecretPreset {
  const preset = SECRET_PRESETS.find((candidate) => candidate.provider === provider);
  if (!preset) throw new Error(`No preset for provider ${provider}`);
  return preset;
}

import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config/config';

/** .env.example lists every variable the configuration schema reads, once, in its order, each with a value the schema accepts. */
it('lists exactly the variables of the configuration, each with a valid example', () => {
  const text = fs.readFileSync(path.resolve(__dirname, '../../.env.example'), 'utf8');
  const examples = [...text.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1], match[2]] as const);
  expect(examples.map(([name]) => name)).toEqual(CONFIG_VARIABLES);
  for (const [name, value] of examples) {
    const env = { NODE_ENV: 'development', [name]: value } as NodeJS.ProcessEnv;
    if (name === 'NODE_ENV') Object.assign(env, { JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: 'ab'.repeat(32) });
    expect(() => loadConfig(env)).not.toThrow();
  }
});

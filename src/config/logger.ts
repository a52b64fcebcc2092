import pino from 'pino';
import { config } from './config';

/** Structured JSON logs; bodies, passwords and tokens are never logged. */
export const logger = pino({
  level: config().LOG_LEVEL,
  base: { service: 'agent-platform-api' },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: { paths: ['*.authorization', '*.password', '*.token', '*.access_token', '*.key'], censor: '[redacted]' },
});

export type Logger = pino.Logger;

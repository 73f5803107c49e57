// Structured logs with pino. Secrets never reach a log line: request logging records paths without
// query strings, and these redaction paths catch credentials that slip into logged objects.
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['authorization', 'headers.authorization', '*.authorization', 'api_key', '*.api_key', 'access_token', '*.access_token', 'key', '*.key', 'token'],
      censor: '[redacted]',
    },
  });
}

import pino, { type Logger } from 'pino';

/** Structured JSON logs. Credentials never reach a log line. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-wp-nonce"]'], censor: '[redacted]' },
  });
}

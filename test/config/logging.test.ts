import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger, logFormatOf } from '../../src/logger.js';

/** LOG_FORMAT: pretty lines for a person at a terminal outside production, JSON otherwise, either forced. */
function sink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('the log format', () => {
  it('is pretty on a terminal outside production and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(logFormatOf({ env: 'development' }, true)).toBe('pretty');
    expect(logFormatOf({ env: 'test' }, true)).toBe('pretty');
    expect(logFormatOf({ env: 'development' }, false)).toBe('json');
    expect(logFormatOf({ env: 'production' }, true)).toBe('json');
    expect(logFormatOf({ env: 'production', logFormat: 'pretty' }, false)).toBe('pretty');
    expect(logFormatOf({ env: 'development', logFormat: 'json' }, true)).toBe('json');
  });

  it('is a setting: json or pretty, anything else refused naming LOG_FORMAT', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('writes JSON lines to a destination, and readable lines when forced pretty, secrets redacted in both', async () => {
    const request = { method: 'GET', url: '/v1.1/app/info?apiKey=mq_secret', ip: '127.0.0.1' };
    const json = sink();
    createLogger({ logLevel: 'info', env: 'development' }, json.stream).info({ req: request }, 'request completed');
    const line = JSON.parse(json.lines.join(''));
    expect(line).toMatchObject({ msg: 'request completed', req: { url: '/v1.1/app/info?apiKey=[redacted]' } });

    const pretty = sink();
    const logger = createLogger({ logLevel: 'info', env: 'production', logFormat: 'pretty' }, pretty.stream);
    logger.info({ req: request }, 'request completed');
    await expect.poll(() => pretty.lines.join('')).toContain('request completed');
    const text = pretty.lines.join('');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/INFO/);
    expect(text).toContain('apiKey=[redacted]');
    expect(text).not.toContain('mq_secret');
    // Uncoloured: the destination is not a terminal.
    expect(text).not.toContain('\u001b[');
  });
});

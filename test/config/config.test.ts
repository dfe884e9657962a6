import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadEnvFile } from '../../src/config.js';
import { temporaryDirectory } from '../support/leftovers.js';

describe('configuration from the environment', () => {
  it('defaults to the embedded database in ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: 'development', port: 4000, host: '127.0.0.1' });
    expect(config.database).toEqual({ kind: 'pglite', dataDir: path.resolve('data', 'pglite') });
  });

  it('uses PostgreSQL with a sized pool when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/marquee', DATABASE_POOL_SIZE: '25' });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/marquee', readUrl: undefined, poolSize: 25, connectionsPerAccount: 12 });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).database.kind).toBe('pglite');
  });

  it('names every invalid variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', NODE_ENV: 'staging' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^PORT: /m);
    expect(problems).toMatch(/^DATABASE_URL: must be a postgres/m);
    expect(problems).toMatch(/^NODE_ENV: /m);
  });

  it('requires SECRET_KEY in production, and a long one', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', METRICS_TOKEN: 'm'.repeat(16) })).toThrow(/SECRET_KEY: required in production/);
    expect(() => loadConfig({ SECRET_KEY: 'short' })).toThrow(/SECRET_KEY: must be at least 32/);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(32), METRICS_TOKEN: 'm'.repeat(16) }).secretKey).toBe('k'.repeat(32));
  });

  it('creates the demo account by default outside production only', () => {
    expect(loadConfig({}).demoAccount).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(32), METRICS_TOKEN: 'm'.repeat(16) }).demoAccount).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(32), METRICS_TOKEN: 'm'.repeat(16), DEMO_ACCOUNT: '1' }).demoAccount).toBe(true);
    expect(loadConfig({ DEMO_ACCOUNT: '0' }).demoAccount).toBe(false);
  });

  it('trusts a number of proxy hops or listed proxies, never every hop; true is one hop', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,loopback' }).trustProxy).toEqual({ addresses: ['10.0.0.1', '192.168.0.0/16', 'loopback'] });
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/TRUST_PROXY: at most 10 hops/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY: expected 0, true, a number of hops or a list/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY: /);
  });
});

describe('ALLOWED_HOSTS', () => {
  it('lists host names, with a port or a leading *. for subdomains, lower-cased', () => {
    expect(loadConfig({}).allowedHosts).toBeUndefined();
    expect(loadConfig({ ALLOWED_HOSTS: 'ID.Example.com, *.fans.example.org:8443,[::1]:4000' }).allowedHosts).toEqual(['id.example.com', '*.fans.example.org:8443', '[::1]:4000']);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'https://id.example.com' })).toThrow(/ALLOWED_HOSTS/);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'id.example.com/path' })).toThrow(/ALLOWED_HOSTS/);
  });
});

describe('the env file', () => {
  const names = ['MARQUEE_TEST_FROM_FILE', 'MARQUEE_TEST_IN_BOTH'];
  afterEach(() => {
    for (const name of names) delete process.env[name];
  });

  it('fills the environment from ENV_FILE (or .env); a variable already set wins', () => {
    const file = path.join(temporaryDirectory('env'), 'settings.env');
    fs.writeFileSync(file, '# comment\nMARQUEE_TEST_FROM_FILE=from-file\nMARQUEE_TEST_IN_BOTH="from-file"\n');
    process.env.MARQUEE_TEST_IN_BOTH = 'from-environment';
    expect(loadEnvFile({ ENV_FILE: file })).toBe(file);
    expect(process.env.MARQUEE_TEST_FROM_FILE).toBe('from-file');
    expect(process.env.MARQUEE_TEST_IN_BOTH).toBe('from-environment');
  });

  it('names ENV_FILE when it points nowhere; a missing .env is fine', () => {
    expect(() => loadEnvFile({ ENV_FILE: '/nonexistent/marquee.env' })).toThrow(/ENV_FILE: no file at \/nonexistent\/marquee.env/);
    const cwd = process.cwd();
    process.chdir(temporaryDirectory('env'));
    try {
      expect(loadEnvFile({})).toBeUndefined();
    } finally {
      process.chdir(cwd);
    }
  });

  it('.env.example names every setting the configuration reads', () => {
    const example = fs.readFileSync(path.resolve('.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
    const source = fs.readFileSync(path.resolve('src/config.ts'), 'utf8');
    const read = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((match) => match[1]);
    expect(read.length).toBeGreaterThan(20);
    for (const name of [...read, 'ENV_FILE']) expect(documented, name).toContain(name);
  });
});

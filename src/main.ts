import 'reflect-metadata';
import { ConfigError, loadConfig, loadEnvFile, type Config } from './config.js';
import { placementRefusal } from './db/citus.js';
import { openDatabase } from './db/client.js';
import { lockDataDir } from './db/lock.js';
import { buildGateway } from './http/server.js';
import { createLogger } from './logger.js';
import { installProcessHandlers } from './process-handlers.js';
import { withSecretKey } from './secret.js';
import { demoWhitelist, ensureDemoAccount, type DemoCredentials } from './modules/tenancy/demo.js';
import { listWhitelist } from './modules/tenancy/tenancy.service.js';
import { widgetUrls } from './modules/widget/widget.urls.js';
import { startMetricsListener } from './http/metrics-endpoint.js';
import { startTracing } from './tracing.js';
import { version } from './version.js';
import { heapCeilingAdvice } from './heap-ceiling.js';

async function main(): Promise<void> {
  let config: Config;
  let envFile: string | undefined;
  try {
    envFile = loadEnvFile();
    config = withSecretKey(loadConfig());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // Before the database opens and the gateway is built: both wrap what they trace only when it is on.
  const tracing = config.tracing ? startTracing(config.tracing) : undefined;
  const logger = createLogger(config);
  if (config.tracing) {
    const { exporter, url, serviceName } = config.tracing;
    logger.info({ exporter, url: exporter === 'otlp' ? url : undefined, serviceName }, 'tracing on (OpenTelemetry)');
  }
  // A rejection nobody awaited is logged and survived; an uncaught exception ends the process (see there).
  installProcessHandlers(logger);
  // A production process started without the image's heap ceiling is told so once (src/heap-ceiling.ts).
  const heapAdvice = config.env === 'production' ? heapCeilingAdvice() : undefined;
  if (heapAdvice) logger.warn(heapAdvice);
  const releaseLock = config.database.kind === 'pglite' ? lockDataDir(config.dataDir, 'the gateway') : () => {};
  if (envFile) logger.info({ file: envFile }, 'settings read from the env file (the environment wins)');
  const database = await openDatabase(config.database, { progress: (message, details) => logger.info(details ?? {}, message) });
  // On a Citus coordinator, a table left undistributed fails at its first write: say so now.
  const refusal = database.kind === 'postgres' ? await placementRefusal(database.db) : undefined;
  if (refusal) {
    await database.close();
    throw new Error(refusal);
  }
  const demo = config.demoAccount ? await ensureDemoAccount(database.db, config.dataDir, { whitelist: demoWhitelist(config.env) }) : undefined;
  // The hosted sign-in page opens for a return page whose host the demo application whitelists.
  const demoHosts = demo ? await listWhitelist(database.db, demo.accountId, demo.applicationId) : [];
  const gateway = await buildGateway({ config, database, logger, demoApiKey: demo?.apiKey });
  const address = await gateway.app.listen({ host: config.host, port: config.port });
  printBanner(config, address, demo, demoHosts);
  const metricsListener = config.metrics.address ? await startMetricsListener(gateway.metrics, { ...config.metrics.address, token: config.metrics.token }) : undefined;
  // In production config.ts refuses to start with neither METRICS_TOKEN nor METRICS_ADDRESS, so /metrics is never public there.
  if (metricsListener) logger.info({ url: metricsListener.url }, 'metrics served on their own address (METRICS_ADDRESS)');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    timer.unref();
    try {
      await gateway.close();
      await metricsListener?.close();
      await database.close();
      // The spans of the last requests leave before the process does.
      await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'the last spans could not be exported'));
      releaseLock();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function printBanner(config: Config, address: string, demo: DemoCredentials | undefined, demoHosts: string[]): void {
  const base = config.publicUrl ?? address.replace('://127.0.0.1', '://localhost');
  const lines = [
    '',
    `Marquee ${version} is running (${config.env}, ${config.database.kind === 'pglite' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL'})`,
    `  GraphQL:  ${base}/graphql`,
    config.env === 'production' ? undefined : `  Explorer: ${base}/graphql  (open it in a browser${demo ? '; the demo key is filled in' : '; add the header x-api-key'})`,
    `  Dashboard: ${base}/dashboard`,
    `  Console:  ${base}/console  (staff are added with the CLI: npm run cli -- staff add)`,
    `  REST:     ${base}/v1.1/...  (reference: ${base}/v1.1/docs)`,
    demo ? `  Demo API key${demo.created ? ' (new)' : ''}: ${demo.apiKey}` : undefined,
    demo ? `  Try:      curl '${base}/v1.1/app/info?apiKey=${demo.apiKey}'` : undefined,
    demo && demoHosts.includes(new URL(base).hostname) ? `  Sign-in:  ${widgetUrls(base, demo.applicationId).login}?return=${encodeURIComponent(`${base}/`)}` : undefined,
    '',
  ];
  console.log(lines.filter((line) => line !== undefined).join('\n'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

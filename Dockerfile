# syntax=docker/dockerfile:1
# Marquee gateway image: built in one stage (all dependencies, esbuild), run from another with
# production dependencies only, as an unprivileged user. docs/configuration.md ("Containers").

# ——— build: dist/ (gateway, CLI, browser pages) and the embedded database template ———
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts run after the sources are in place: `prepare` bundles src/ and saves the PGlite template.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY drizzle ./drizzle
RUN npm rebuild && node scripts/prepare.mjs

# ——— production dependencies only (no install scripts: the bundle is already built) ———
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# ——— run ———
FROM node:20-bookworm-slim
# Production refuses to start with /metrics public on the API port: by default it is served on a
# port of its own, 9464, which `docker run -p 4000:4000` does not publish (docs/configuration.md).
# The heap ceiling keeps V8 from growing the heap to 4× its live data between collections
# (src/heap-ceiling.ts; docs/operations.md, Memory); `-e NODE_OPTIONS=…` replaces it.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=1536 \
    HOST=0.0.0.0 \
    PORT=4000 \
    METRICS_ADDRESS=0.0.0.0:9464 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# The migrated empty embedded database, so a container without DATABASE_URL skips initdb.
COPY --from=build /app/node_modules/.cache/marquee ./node_modules/.cache/marquee
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY drizzle ./drizzle
# The node image's unprivileged user owns only the data directory; the code stays read-only to it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/main.js"]

# serverless-cdc capture task: `node bin/cdc.js run`, configured by CDC_* environment variables.
# Multi-stage: production dependencies are installed in one throw-away stage, the TypeScript is compiled in
# another; the runtime image holds only node_modules, the CLI entry point and the compiled JavaScript (dist/),
# which bin/cdc.js runs when no sources are next to it.

# ---- production dependencies
FROM public.ecr.aws/docker/library/node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---- compile (npm run build: tsc -p tsconfig.build.json → dist/src)
FROM public.ecr.aws/docker/library/node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- runtime
FROM public.ecr.aws/docker/library/node:22-bookworm-slim AS runtime
# V8 grows its heap lazily up to its limit; the capture's live data is bounded by max.queue.size(.in.bytes),
# so a heap cap keeps RSS near that bound instead of wherever V8 stops (bench/streaming: ~460 MB → ~260 MB).
# Raise it together with max.queue.size.in.bytes and the task's memory. A 32 MB young generation lets most records
# die young instead of being promoted while they wait in the queue (bench/streaming: ~20% less CPU for ~20 MB RSS).
# --no-allocation-site-pretenuring (a V8 flag NODE_OPTIONS does not accept, so it is on the node command line in
# ENTRYPOINT): while the queue is full (a sink slower than the binlog, or the first seconds of a stream), records
# survive scavenges, and V8 then decides for good to allocate everything from those sites (records, row arrays,
# source blocks) straight in the old generation, where it dies only by mark-compact and every young value it
# points to is kept alive through the remembered set. bench/streaming: 35–40% less CPU (narrow, wide), 10% (JSON),
# 15–35 MB less RSS.
# --initial-old-space-size=64 (ENTRYPOINT too): the old generation starts with a limit below the ~20 MB it settles
# at, and growing it cost 2-4 mark-compacts in the first second. bench/streaming (3 alternating A/B runs per shape,
# 40k rows): mark-compacts 3-4 -> 1; reader CPU narrow 1919/1992/2029 -> 1840/1809/1841 ms, wide 2512/2284/2551
# -> 2322/1952/2032 ms; peak RSS unchanged at that size (~125-133 MB), a little higher at the default wide size
# (50k+50k rows: 168-170 -> 172-185 MB, mark-compacts 9-10 -> 4). A larger young generation (--min-semi-space-size=32)
# cut scavenges 3x and narrow CPU further (median 1710 ms), but for 25-50 MB more RSS: not taken.
# bench/ runs our readers with these same options (NODE_OPTIONS and the node flags of ENTRYPOINT).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=32"
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --from=build --chown=root:root /app/dist ./dist
# Code is owned by root and read-only for the runtime user.
USER node
EXPOSE 8080
ENTRYPOINT ["node", "--no-allocation-site-pretenuring", "--initial-old-space-size=64", "bin/cdc.js"]
CMD ["run"]

# syntax=docker/dockerfile:1
# Turn service image: multi-stage, Node.js 24 LTS (node:24.22.3-bookworm-slim, the same exact
# version as scripts/node24.sh), production dependencies only, non-root, tini as PID 1 (it forwards
# SIGTERM to the service, which then shuts down gracefully, and reaps orphaned processes; without
# it, use `docker run --init`).
#   docker build -t turn-service .
#   export AUTH_TOKENS="$(openssl rand -hex 32)"   # the bearer token clients send
#   docker run -p 8787:8787 -v turn-data:/data -e AUTH_TOKENS -e OPENAI_API_KEY=sk-... -e MODEL=gpt-5-mini turn-service
# The container binds 0.0.0.0, so AUTH_TOKENS is required (the service refuses to start without it; 16+ characters per token).
# The computer family's bubblewrap sandbox needs unprivileged user namespaces; on hosts whose
# seccomp/AppArmor profile forbids them, run with a profile that allows them or set COMPUTER_SANDBOX=none.

# --- build: compile TypeScript, then drop dev dependencies ---
FROM node:24.22.3-bookworm-slim AS build
WORKDIR /app
# No compiler toolchain: better-sqlite3 13 ships its linux-x64/arm64 binaries inside the package.
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json openapi.yaml ./
COPY src ./src
COPY routes ./routes
COPY console ./console
RUN npm run build && npm prune --omit=dev

# --- runtime ---
FROM node:24.22.3-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data
COPY --from=build /app/package.json /app/openapi.yaml ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "dist/src/main.js"]

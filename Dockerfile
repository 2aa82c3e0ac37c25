# syntax=docker/dockerfile:1
# One mock service per container: `understudy run` reads /config/mock.json and serves it on 8080,
# with the admin API (health, config swap, inspection, verification, log) on 9090. The file may be
# anything `understudy serve` reads (a mock-service document, transactions, HAR, OpenAPI, WireMock,
# Postman, RR pairs; JSON or YAML whatever its name); mount another path with `--mock`.
#
#   docker build -t understudy .
#   docker run -p 8080:8080 -v "$PWD/mock.json:/config/mock.json:ro" understudy
#
# The admin API stays on the container's loopback (the health check uses it) unless a token is
# given: then it listens on every interface and needs "Authorization: Bearer <token>".
#
#   docker run -p 8080:8080 -p 9090:9090 -e UNDERSTUDY_ADMIN_TOKEN=s3cret \
#     -v "$PWD/openapi.yaml:/config/mock.json:ro" understudy
#   curl -H 'Authorization: Bearer s3cret' localhost:9090/inspection/unmatched

ARG NODE_VERSION=20

# 1. Build: compile TypeScript with the dev dependencies.
FROM node:${NODE_VERSION}-alpine AS build
WORKDIR /app
RUN apk add --no-cache python3 make g++
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY importers ./importers
COPY ui ./ui
RUN npm run build

# 2. Production dependencies only; better-sqlite3 is compiled here, against musl.
FROM node:${NODE_VERSION}-alpine AS deps
WORKDIR /app
RUN apk add --no-cache python3 make g++
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# 3. Runtime: no compilers, no dev dependencies, not root.
FROM node:${NODE_VERSION}-alpine
RUN apk add --no-cache tini
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 8080 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9090/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/sbin/tini", "--", "node", "/app/dist/src/cli/main.js", "run"]
CMD ["--mock", "/config/mock.json", "--host", "0.0.0.0", "--port", "8080", "--admin-port", "9090"]

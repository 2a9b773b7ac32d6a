FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json binding.gyp ./
COPY native native
COPY src src
COPY projections projections
# Only what `serve` runs: the tests and benchmarks are not copied, so they are neither built nor shipped.
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/build/Release/free_memory.node build/Release/free_memory.node
# The embedded mode keeps its SQLite files here; mount a volume on it to keep them.
RUN mkdir -p /app/data && chown node:node /app/data
ENV HEDGELOG_DATA_DIR=/app/data
VOLUME /app/data
USER node
EXPOSE 8000
ENTRYPOINT ["/app/dist/src/main.js"]
CMD ["serve"]

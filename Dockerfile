# The service against an external MongoDB (see docker-compose.yml), on
# Node.js 24 LTS, the Node the README names.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev leaves out the `node` dev dependency too: the image's own Node runs the service
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
# the study page, bundled by the service on its first request
COPY web ./web
# scripts/ too, so that `npm run seed` works in the container
COPY scripts ./scripts
USER node
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--import", "tsx", "src/server.ts"]

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Build: `npx vite build --config web/vite.config.ts` (from the repo root) writes web/dist. */
const backend = 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': backend,
      '/healthz': backend,
      '/ws': { target: backend, ws: true },
    },
  },
});

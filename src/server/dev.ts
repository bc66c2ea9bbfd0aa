// `npm run dev`: the API server on $PORT (default 3000) and Vite's dev server with hot reload on
// 5173, which proxies /api, /auth/v1 and /storage/v1 to the API (see vite.config.ts).
import { createServer } from 'vite';

process.env.PUBLIC_URL ??= 'http://localhost:5173';
await import('./main');
const vite = await createServer({ configFile: 'vite.config.ts' });
await vite.listen();
vite.printUrls();

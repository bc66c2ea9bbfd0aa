// Secrets that must survive restarts but need no setup in the embedded defaults: generated once
// and kept in $DATA_DIR/secrets.json (mode 0600). Configure them explicitly when several server
// processes share the work (see README "Configuration").
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function loadOrCreateSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, 'secrets.json');
  fs.mkdirSync(dataDir, { recursive: true });
  let secrets: Record<string, string> = {};
  if (fs.existsSync(file)) secrets = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  if (!secrets[name]) {
    secrets[name] = randomBytes(48).toString('base64url');
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  return secrets[name];
}

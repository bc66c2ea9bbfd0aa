// Picks the storage driver from the configuration: local files by default, S3 when STORAGE_URL=s3://...
import type { Config } from '../config';
import type { StorageDriver } from './types';

export * from './types';

export async function createStorage(config: Config): Promise<StorageDriver> {
  if (config.storage.kind === 's3') {
    // Loaded only when used: the embedded default never pays for the AWS SDK.
    const { S3Storage } = await import('./s3');
    return S3Storage.fromUrl(config.storage.url);
  }
  const { LocalStorage } = await import('./local');
  return LocalStorage.open(config);
}

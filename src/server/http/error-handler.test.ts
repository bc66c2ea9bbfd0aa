import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandler } from './error-handler';

describe('the product API error handler', () => {
  it('answers 400 validation_failed for text the database refused (a NUL no contract rule caught), and 500 for other database errors', async () => {
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    // What drizzle throws: its DrizzleQueryError with the driver's error as the cause.
    app.get('/nul', async () => {
      throw Object.assign(new Error('Failed query: select ...'), { cause: Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }) });
    });
    app.get('/other', async () => {
      throw Object.assign(new Error('Failed query: select ...'), { cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }) });
    });
    const nul = await app.inject({ method: 'GET', url: '/nul' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({ success: false, code: 'validation_failed', error: 'Text must not contain NUL characters or unpaired surrogates' });
    const other = await app.inject({ method: 'GET', url: '/other' });
    expect(other.statusCode).toBe(500);
    expect(other.json()).toMatchObject({ success: false, code: 'internal_error' });
    await app.close();
  });
});

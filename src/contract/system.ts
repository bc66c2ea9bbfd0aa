import { z } from 'zod';

export const HealthResponse = z.object({
  status: z.literal('ok'),
  database: z.enum(['pglite', 'postgres']),
  storage: z.enum(['local', 's3']),
  auth: z.enum(['embedded', 'supabase']),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

export const ConfigResponse = z.object({
  supabaseUrl: z.string(),
  supabaseAnonKey: z.string(),
  authMode: z.enum(['embedded', 'supabase']),
  googleEnabled: z.boolean(),
});
export type ConfigResponse = z.infer<typeof ConfigResponse>;

export const ErrorResponse = z.object({ success: z.literal(false), error: z.string(), code: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

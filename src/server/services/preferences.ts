// A person's own preferences (issue 37), kept in their profile row (profiles.preferences, jsonb,
// 0025_user_preferences.sql): read with the defaults filled in, and replaced whole (the body was
// checked against src/contract/preferences.ts). Plain SQL: the column is this file's alone.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { AuthUser } from '../auth/types';
import { readPreferences, type UserPreferences } from '../../contract/preferences';
import { ensureProfile } from './profiles';

export async function getPreferences(db: Db, user: AuthUser): Promise<UserPreferences> {
  await ensureProfile(db, user);
  const result = (await db.execute(sql`SELECT preferences FROM profiles WHERE id = ${user.id}`)) as unknown as { rows: { preferences: unknown }[] };
  return readPreferences(result.rows[0]?.preferences);
}

export async function savePreferences(db: Db, user: AuthUser, preferences: UserPreferences): Promise<UserPreferences> {
  await ensureProfile(db, user);
  await db.execute(sql`UPDATE profiles SET preferences = ${JSON.stringify(preferences)}::jsonb, updated_at = now() WHERE id = ${user.id}`);
  return readPreferences(preferences);
}

// The activity of an image (issue 29): one image_events row per stage change, (re)assignment,
// issue opened or resolved and comment, written in the transaction of the change itself, and read
// newest first by id. Also the names people are shown by, and the live announcement of an image's
// issues (NOTIFY on WORKFLOW_CHANNEL; the live hub tells the image's sockets).
import { inArray, sql } from 'drizzle-orm';
import type { Exec } from '../../db/client';
import { imageEvents, profiles } from '../../db/schema';
import type { Person } from '../../../contract/workflow';

export type NewEvent = typeof imageEvents.$inferInsert;

/** The channel an image's issue and comment changes are announced on: the payload is the image id. */
export const WORKFLOW_CHANNEL = 'vellum_workflow';

const EVENT_CHUNK = 1000;

export async function recordEvents(db: Exec, events: NewEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += EVENT_CHUNK) await db.insert(imageEvents).values(events.slice(i, i + EVENT_CHUNK));
}

/** A 'status' event for each image whose status differs between before and after (matched by id). */
export function statusEvents(userId: string, before: readonly { id: string; status: string }[], after: readonly { id: string; status: string }[]): NewEvent[] {
  const was = new Map(before.map((r) => [r.id, r.status]));
  return after.filter((r) => was.has(r.id) && was.get(r.id) !== r.status).map((r) => ({ imageId: r.id, type: 'status' as const, userId, fromValue: was.get(r.id)!, toValue: r.status }));
}

/** Tells the image's live sockets that its issues changed, once the transaction commits. */
export async function announceIssues(db: Exec, imageId: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${WORKFLOW_CHANNEL}, ${imageId})`);
}

/** id -> {id, name} for these users: the full name, else the e-mail, else 'Former member'. */
export async function peopleByIds(db: Exec, ids: Iterable<string | null>): Promise<Map<string, Person>> {
  const wanted = [...new Set([...ids].filter((id): id is string => !!id))];
  const found = wanted.length ? await db.select({ id: profiles.id, fullName: profiles.fullName, email: profiles.email }).from(profiles).where(inArray(profiles.id, wanted)) : [];
  const people = new Map<string, Person>(wanted.map((id) => [id, { id, name: 'Former member' }]));
  for (const p of found) people.set(p.id, { id: p.id, name: p.fullName?.trim() || p.email || 'Former member' });
  return people;
}

export const personOf = (people: Map<string, Person>, id: string | null): Person => (id ? (people.get(id) ?? { id, name: 'Former member' }) : { id: '', name: 'Former member' });

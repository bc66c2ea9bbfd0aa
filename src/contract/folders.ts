// Virtual folders of a project (spec sections 3, 5 "Folder rename", 7 "Folders").
// A folder path is '/' for the root, else '/' followed by names joined with '/': '/cats/black'.
import { z } from 'zod';
import { isStorableText, UNSTORABLE_TEXT } from './text';

export const ROOT_PATH = '/';
export const FOLDER_NAME_MAX = 100;
export const FOLDER_PATH_MAX = 1000;
export const FOLDER_DEPTH_MAX = 32;
export const UNTITLED_FOLDER = 'Untitled Folder';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff]/;

/** The trimmed name, or an error a person can read. */
export function checkFolderName(raw: string): { name: string } | { error: string } {
  const name = raw.normalize('NFC').trim();
  if (!name) return { error: 'Folder name must not be empty' };
  if (!isStorableText(name)) return { error: `Folder name ${UNSTORABLE_TEXT}` };
  if (name.includes('/') || name.includes('\\')) return { error: 'Folder name must not contain "/" or "\\"' };
  if (CONTROL.test(name)) return { error: 'Folder name must not contain control characters' };
  if (name === '.' || name === '..') return { error: 'Folder name must not be "." or ".."' };
  if (Array.from(name).length > FOLDER_NAME_MAX) return { error: `Folder name must be at most ${FOLDER_NAME_MAX} characters` };
  return { name };
}

/**
 * The canonical form of a folder path, or an error. Accepts '', '/', 'a/b', '/a/b/' (leading and
 * trailing slashes are optional); refuses '.', '..', empty segments in the middle, control characters.
 */
export function normalizeFolderPath(raw: string): { path: string } | { error: string } {
  const trimmed = raw.normalize('NFC').trim();
  if (trimmed === '' || trimmed === ROOT_PATH) return { path: ROOT_PATH };
  if (trimmed.includes('\\')) return { error: 'Folder path must not contain "\\"' };
  const inner = trimmed.replace(/^\//, '').replace(/\/$/, '');
  const parts = inner.split('/');
  if (parts.length > FOLDER_DEPTH_MAX) return { error: `Folders can be nested at most ${FOLDER_DEPTH_MAX} deep` };
  for (const part of parts) {
    if (part === '') return { error: 'Folder path must not contain empty segments ("//")' };
    const checked = checkFolderName(part);
    if ('error' in checked) return { error: `Invalid folder path "${raw.slice(0, 200)}": ${checked.error}` };
    if (checked.name !== part) return { error: `Invalid folder path "${raw.slice(0, 200)}": names must not start or end with spaces` };
  }
  const path = `/${parts.join('/')}`;
  if (path.length > FOLDER_PATH_MAX) return { error: `Folder path must be at most ${FOLDER_PATH_MAX} characters` };
  return { path };
}

export function joinFolderPath(parent: string, name: string): string {
  return parent === ROOT_PATH ? `/${name}` : `${parent}/${name}`;
}

export function parentFolderPath(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? ROOT_PATH : path.slice(0, cut);
}

/** True when `path` is `ancestor` itself or lies inside it. */
export function isSameOrInside(path: string, ancestor: string): boolean {
  if (ancestor === ROOT_PATH) return true;
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

export interface FolderNode {
  id: string;
  name: string;
  full_path: string;
  parent_folder_id: string | null;
  parent_folder_path: string;
  /** Non-archived images directly in this folder. */
  image_count: number;
  /** Non-archived images in this folder and all folders inside it. */
  total_image_count: number;
  created_at: string;
  children: FolderNode[];
}

export const FolderNode: z.ZodType<FolderNode> = z.lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    full_path: z.string(),
    parent_folder_id: z.string().nullable(),
    parent_folder_path: z.string(),
    image_count: z.number(),
    total_image_count: z.number(),
    created_at: z.string(),
    children: z.array(FolderNode),
  }),
);

/** A folder without its children (what create, rename and move answer). */
export const Folder = z.object({
  id: z.string(),
  name: z.string(),
  full_path: z.string(),
  parent_folder_id: z.string().nullable(),
  parent_folder_path: z.string(),
  project_id: z.string(),
  created_at: z.string(),
});
export type Folder = z.infer<typeof Folder>;

export const ListFoldersResponse = z.object({
  folders: z.array(FolderNode),
  /** Non-archived images at the root, and in the whole project. */
  root_image_count: z.number(),
  total_image_count: z.number(),
});

export const CreateFolderRequest = z.object({
  project_id: z.string().uuid('project_id must be a UUID'),
  /** Absent or blank: the first free 'Untitled Folder N' in the parent. */
  name: z.string().max(1000).nullish(),
  parent_folder_path: z.string().max(2000).default(ROOT_PATH),
});
export const FolderResponse = z.object({ success: z.literal(true), folder: Folder });

export const RenameFolderQuery = z.object({ name: z.string().max(1000) });
export const MoveFolderRequest = z.object({ target_parent_path: z.string().max(2000) });
export const RelocateFolderResponse = z.object({
  success: z.literal(true),
  folder: Folder,
  /** Folders whose path changed (this one and everything inside it). */
  updated_folders: z.number(),
  /** Images (archived included) whose virtual_folder_path changed. */
  updated_images: z.number(),
});

export const DeleteFolderQuery = z.object({
  /** 'refuse' (default): only an empty folder is deleted, else 409. 'move_to_parent': its images and folders move up one level first. */
  contents: z.enum(['refuse', 'move_to_parent']).default('refuse'),
});
export const DeleteFolderResponse = z.object({
  success: z.literal(true),
  deleted_folder_id: z.string(),
  moved_images: z.number(),
  moved_folders: z.number(),
});

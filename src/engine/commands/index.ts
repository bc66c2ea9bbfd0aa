// Every document command, registered in one place (Excalidraw-style: one file per command).
import { addHole } from './add-hole';
import { convert } from './convert';
import { create } from './create';
import { deleteAnnotations } from './delete';
import { deleteVertex } from './delete-vertex';
import { insertVertex } from './insert-vertex';
import { move } from './move';
import { moveVertex } from './move-vertex';
import { paste } from './paste';
import { removeAll } from './remove-all';
import { replaceAll } from './replace-all';
import { resizeBox } from './resize-box';
import { acceptPredictions, rejectPredictions } from './review-predictions';
import { setAttributes } from './set-attributes';
import { setClass } from './set-class';
import { setMask } from './set-mask';
import { setSkeletonPoint } from './set-skeleton-point';
import { updateAttributes } from './update-attributes';
import type { Command } from './types';

export const commands = {
  create,
  delete: deleteAnnotations,
  move,
  'move-vertex': moveVertex,
  'insert-vertex': insertVertex,
  'delete-vertex': deleteVertex,
  'resize-box': resizeBox,
  'add-hole': addHole,
  'set-class': setClass,
  'set-attributes': setAttributes,
  'update-attributes': updateAttributes,
  paste,
  'replace-all': replaceAll,
  'remove-all': removeAll,
  'set-mask': setMask,
  'set-skeleton-point': setSkeletonPoint,
  convert,
  'accept-predictions': acceptPredictions,
  'reject-predictions': rejectPredictions,
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandPayload<N extends CommandName> = Commands[N] extends Command<infer P, unknown> ? P : never;
export type CommandResult<N extends CommandName> = Commands[N] extends Command<unknown, infer R> ? R : never;

export type { AttributesPolicy, Command, CommandEnv } from './types';
export type { MovePayload } from './move';

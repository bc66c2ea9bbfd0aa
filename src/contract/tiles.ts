// The tile pyramid of a large image (GET /api/v1/images/{id}/tiles): the editor draws images
// above TILED_ABOVE px on their longest side from tiles, since a browser cannot decode them whole.
import { z } from 'zod';

/** Longest side above which an image gets a pyramid; the editor draws anything smaller from one texture. */
export const TILED_ABOVE = 4096;
/** Tile edge in pixels of its level; the render worker's tile grid uses the same size. */
export const TILE_SIZE = 512;

export const ImageTiles = z.discriminatedUnion('status', [
  /** Small enough to draw whole. */
  z.object({ status: z.literal('none') }),
  /** Being made; ask again shortly. */
  z.object({ status: z.literal('pending') }),
  z.object({ status: z.literal('failed'), error: z.string() }),
  z.object({
    status: z.literal('ready'),
    width: z.number().int(),
    height: z.number().int(),
    tile_size: z.number().int(),
    /** Level L is the image at 1/2^L, cut into cols x rows tiles; urls row by row. The last level is one tile. */
    levels: z.array(z.object({ level: z.number().int(), cols: z.number().int(), rows: z.number().int(), urls: z.array(z.string()) })),
    expires_at: z.string(),
  }),
]);
export type ImageTiles = z.infer<typeof ImageTiles>;

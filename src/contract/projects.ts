// Projects and their classes (spec sections 3 and 7, "Projects and usage").
import { z } from 'zod';
import { storedText } from './text';

export const ANNOTATION_TYPES = ['box', 'polygon', 'polyline', 'keypoint'] as const;
export const AnnotationType = z.enum(ANNOTATION_TYPES);
export type AnnotationType = z.infer<typeof AnnotationType>;

/** The 15 pastel class colours, in palette order (DESIGN.md). */
export const CLASS_PALETTE = [
  '#FFADAD', '#FFD6A5', '#FDFFB6', '#CAFFBF', '#9BF6FF', '#A0C4FF', '#BDB2FF', '#FFC6FF',
  '#FFB3C6', '#B9FBC0', '#8EECF5', '#90DBF4', '#CFBAF0', '#F1C0E8', '#FBF8CC',
] as const;

export const ProjectClass = z.object({
  name: storedText(z.string().trim().min(1, 'Class name is required').max(100, 'Class name must be at most 100 characters'), 'Class name'),
  type: AnnotationType,
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Colour must look like #rrggbb'),
});
export type ProjectClass = z.infer<typeof ProjectClass>;

export const ProjectClasses = z
  .array(ProjectClass)
  .max(1000)
  .superRefine((classes, ctx) => {
    const seen = new Set<string>();
    classes.forEach((c, i) => {
      const key = c.name.trim().toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: 'custom', message: `Class names must be unique ("${c.name}" appears twice)`, path: [i, 'name'] });
      seen.add(key);
    });
  });

export const PreviewImage = z.object({ id: z.string(), filename: z.string(), thumbnail_url: z.string().nullable() });

export const Project = z.object({
  id: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  organization_id: z.string().uuid(),
  gcs_path: z.string(),
  classes: z.array(ProjectClass),
  annotation_types: z.array(z.string()),
  created_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  image_count: z.number(),
  completed_image_count: z.number(),
  annotation_count: z.number(),
  total_size: z.number(),
  archived_images: z.number(),
  /** Up to 3 latest images, for the project card. */
  preview_images: z.array(PreviewImage),
});
export type Project = z.infer<typeof Project>;

export const ProjectsResponse = z.object({ projects: z.array(Project) });
export const ProjectResponse = z.object({ success: z.literal(true), project: Project });

const ProjectName = storedText(z.string().trim().min(1, 'Project name is required').max(200, 'Project name must be at most 200 characters'), 'Project name');
const ProjectDescription = storedText(z.string().trim().max(2000, 'Description must be at most 2000 characters'), 'Description');

export const CreateProjectRequest = z.object({
  organization_id: z.string().uuid(),
  name: ProjectName,
  description: ProjectDescription.nullish(),
  annotation_types: z.array(AnnotationType).min(1).default(['box']),
  classes: ProjectClasses.default([]),
});

export const UpdateProjectRequest = z
  .object({
    name: ProjectName.optional(),
    description: ProjectDescription.nullable().optional(),
    classes: ProjectClasses.optional(),
    annotation_types: z.array(AnnotationType).min(1).optional(),
  })
  .strict();

export const DeleteProjectResponse = z.object({ success: z.literal(true), message: z.string() });

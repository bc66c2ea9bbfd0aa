// The pages that come in chunks of their own (see lazyPage.tsx). The sign-in, onboarding and
// projects pages are in the entry chunk; these load when first opened.
import { lazyPage } from './lazyPage';

/** The editor: engine, renderer, render worker client and wasm kernels. */
export const AnnotatePage = lazyPage(() => import('./pages/annotate/AnnotatePage').then((m) => m.AnnotatePage), {
  layout: 'full',
  loading: 'Loading editor...',
  failed: "The editor didn't load",
});

/** The project page: its Data, Archive and Classes tabs, uploads, export and Magic Image Edit. */
export const ProjectPage = lazyPage(() => import('./pages/project/ProjectPage').then((m) => m.ProjectPage), {
  layout: 'main',
  loading: 'Loading project...',
  failed: "The project page didn't load",
});

export const SettingsPage = lazyPage(() => import('./pages/settings/SettingsPage').then((m) => m.SettingsPage), {
  layout: 'main',
  loading: 'Loading settings...',
  failed: "The settings page didn't load",
});

/** The reviewer's merge of an overlapped image's drafts (issue 36 §3). */
export const MergePage = lazyPage(() => import('./pages/merge/MergePage').then((m) => m.MergePage), {
  layout: 'main',
  loading: 'Loading the drafts...',
  failed: "The merge view didn't load",
});

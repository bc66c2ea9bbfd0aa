// The annotation editor (spec section 2 'Annotation editor', section 4 'Editor'): top bar,
// tool palette, class picker, the engine's canvas, the Annotations sidebar and the settings
// panel. The Editor and the renderer live as long as the screen; each image is loaded into them,
// in slices (parse, validation and build never block the main thread for long; a progress bar for
// large documents). A role without annotations.write gets the same screen read-only: the engine
// refuses edits (Editor.setReadOnly), editing controls are disabled, nothing is saved.
// The sidebar's History view (issue 14) lists the image's versions; one of them can be looked at
// over the canvas and restored as a new version (./useHistoryView holds that wiring).
import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, ChevronLeft, ChevronRight, History, TriangleAlert, ZoomIn, ZoomOut, Maximize } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { roleCan } from '../../../contract/permissions';
import type { Image } from '../../../contract/images';
import type { AnnotationType, Project, ProjectClass } from '../../../contract/projects';
import { Editor, storedToEditor, type EditorAnnotation, type ToolId } from '../../../engine';
import type { ImageSourceInput } from '../../../workers/render-client';
import type { SaveDataResponse } from '../../../contract/annotation-api';
import { api, serverMessage } from '../../api/client';
import { Button, IconButton } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { readStorage, writeStorage } from '../../lib/storage';
import { deniedReason, ROLE_LABEL } from '../../stores/permissions';
import { useSelection } from '../../stores/selection';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { AddClassDialog } from '../project/AddClassDialog';
import { projectKey } from '../projects/queries';
import { AnnotationList } from './AnnotationList';
import { editorApi, parseLoadData } from './api';
import { AutoAnnotateSession } from './autoAnnotate';
import { AutoAnnotateBar, MaskOverlay, useAutoState } from './AutoAnnotateBar';
import { ClassPicker, TYPE_NAMES } from './ClassPicker';
import { copyShapes, takePaste } from './clipboard';
import { EditorCanvas } from './EditorCanvas';
import { historyKey, HistoryPanel } from './HistoryPanel';
import type { EditorToolId } from './hotkeys';
import { loadAnnotations, openImage, prefetchImage } from './preload';
import { LoadingProgress, progressStore } from './LoadingProgress';
import { EditorSaveLink, getSaveManager } from './save';
import { SaveIndicator, ViewOnlyIndicator } from './SaveIndicator';
import { SettingsPanel } from './SettingsPanel';
import { ToolPalette, VIEW_TOOLS } from './ToolPalette';
import { recordCreated } from './usage';
import { useCamera, useDocumentVersion, useEditorView } from './useEditor';
import { useEditorKeys } from './useEditorKeys';
import { useHistoryView } from './useHistoryView';
import { PREVIEW_REASON, RestoreDialog, VersionBanner } from './VersionPreview';
import styles from './AnnotatePage.module.css';

const SIDEBAR_KEY = 'vellum.editorSidebarCollapsed';
const TRANSPARENCY_KEY = 'vellum.editorTransparency';
const FALLBACK_COLOR = '#A0C4FF';
const MESSAGE_MS = 2000;
/** The share of a load's progress bar that parsing the response takes (validating and building: the rest). */
const PARSE_SHARE = 0.2;

/** The engine tool behind each palette tool (Auto-Annotate takes clicks itself; drags pan). */
const ENGINE_TOOL: Record<EditorToolId, ToolId> = { select: 'select', auto: 'pan', box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint' };
/** The class type each drawing tool needs (assisted masks are listed as polygons). */
const TOOL_CLASS_TYPE: Partial<Record<EditorToolId, AnnotationType>> = { box: 'box', polygon: 'polygon', polyline: 'polyline', keypoint: 'keypoint', auto: 'polygon' };

function classTypeOf(a: EditorAnnotation): AnnotationType {
  return a.type === 'segmentation' ? 'polygon' : a.type;
}

export interface EditorScreenProps {
  project: Project;
  orgId: string;
  image: Image;
  /** The folder's images in the Data tab's order (undefined while loading). */
  sequence: Image[] | undefined;
  onNavigate(image: Image): void;
  onBack(): void;
  onManageClasses(): void;
}

type LoadState = { imageId: string; status: 'loading' } | { imageId: string; status: 'ready' } | { imageId: string; status: 'error'; message: string };

export function EditorScreen({ project, orgId, image, sequence, onNavigate, onBack, onManageClasses }: EditorScreenProps) {
  const qc = useQueryClient();
  const updateSelection = useSelection((s) => s.update);
  const editor = useMemo(() => new Editor(), []);
  const auto = useMemo(
    () =>
      new AutoAnnotateSession({
        warmup: () => editorApi.segWarmup(orgId),
        health: () => editorApi.segHealth(orgId),
        process: (name) => editorApi.segProcess(project.id, name),
        mask: (name, pos, neg, prev, signal) => editorApi.segMask(project.id, name, pos, neg, prev, signal),
      }),
    [orgId, project.id],
  );
  useEffect(() => () => auto.dispose(), [auto]);
  const autoState = useAutoState(auto);
  const view = useEditorView(editor);
  const documentVersion = useDocumentVersion(editor);
  const saver = getSaveManager();
  const saveStatus = useSyncExternalStore(
    useCallback((cb: () => void) => saver.subscribe(cb), [saver]),
    () => saver.status(),
  );

  // The role in this project's organization decides whether the editor may change anything.
  const role = useSession((s) => s.organizations.find((o) => o.id === orgId)?.user_role ?? null);
  const readOnly = !role || !roleCan(role, 'annotations.write');
  const viewOnlyReason = readOnly ? deniedReason(role ? ROLE_LABEL[role] : 'member', 'edit annotations') : null;
  useLayoutEffect(() => editor.setReadOnly(readOnly), [editor, readOnly]);
  const progress = useMemo(progressStore, []);
  const openGeneration = useRef(0);
  const shownImage = useRef(image.id);
  shownImage.current = image.id;

  const [tool, setTool] = useState<EditorToolId>('select');
  const toolRef = useRef(tool);
  toolRef.current = tool;
  const [load, setLoad] = useState<LoadState>({ imageId: image.id, status: 'loading' });
  const [imageSource, setImageSource] = useState<ImageSourceInput | undefined>(undefined);
  // The image id whose pixels the renderer has open (the overlay stays until then).
  const [drawnImage, setDrawnImage] = useState<string | null>(null);
  const sourceOwner = useRef<string | null>(null);
  const [recovered, setRecovered] = useState<{ imageId: string; changes: number } | null>(null);
  const [collapsed, setCollapsed] = useState(() => readStorage<boolean>(SIDEBAR_KEY, false));
  const [transparency, setTransparency] = useState(() => readStorage<number>(TRANSPARENCY_KEY, 50));
  const [noClassesOpen, setNoClassesOpen] = useState(false);
  const [addClassType, setAddClassType] = useState<AnnotationType | null>(null);
  const [copyingPrevious, setCopyingPrevious] = useState(false);
  // This image's document is in the editor (set as the screen renders). Until then keys that act
  // on the document wait (it is still the previous image's), and so does showing a version.
  const readyRef = useRef(false);

  const classes = project.classes;
  const classByName = useMemo(() => new Map(classes.map((c) => [c.name, c])), [classes]);
  const classColor = useCallback((name: string) => classByName.get(name)?.color ?? FALLBACK_COLOR, [classByName]);
  const colorsKey = classes.map((c) => `${c.name}:${c.color}`).join('|');

  // True while changes wait in the link's short gathering window: the top bar must not say 'Saved' then.
  const [gathering, setGathering] = useState(false);
  // Between the editor and the save manager: deltas out, merged conflicts back in as changes to
  // the live document. It knows the image the editor holds (none while one loads: changes made
  // by loading are not the user's).
  const link = useMemo(
    () =>
      new EditorSaveLink(editor, saver, {
        onGathering: setGathering,
        onMerged: (merge) =>
          toast(
            merge.conflicts.length
              ? `Conflict merged: someone else saved this image too. ${merge.conflicts.length} annotation(s) changed on both sides kept the later edit.`
              : 'Conflict merged: changes saved from elsewhere were kept with yours.',
            'neutral',
            6000,
          ),
      }),
    [editor, saver],
  );
  useEffect(() => link.start(), [link]);

  // The project page's counters, the sequence's statuses and the history follow a save's answer.
  const followSave = useCallback(
    (imageId: string, res: SaveDataResponse) => {
      if (res.status_updated) void qc.invalidateQueries({ queryKey: projectKey(project.id) });
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', project.id] }, (list) =>
        list?.map((i) => (i.id === imageId ? { ...i, status: res.status, annotation_count: res.new_count } : i)),
      );
      void qc.invalidateQueries({ queryKey: historyKey(imageId) });
    },
    [qc, project.id],
  );

  // ---------------------------------------------------------------- history and version preview
  const expandSidebar = useCallback(() => {
    setCollapsed(false);
    writeStorage(SIDEBAR_KEY, false);
  }, []);
  const historyView = useHistoryView({ editor, imageId: image.id, projectId: project.id, readOnly, viewOnlyReason, link, saver, followSave, collapsed, expandSidebar, documentReady: readyRef });
  const { preview, previewEditor, previewing, previewShown, opening, reopenToken } = historyView;
  const lastClassByType = useRef(new Map<AnnotationType, string>());

  // ---------------------------------------------------------------- navigation
  const index = sequence ? sequence.findIndex((i) => i.id === image.id) : -1;
  const previous = index > 0 ? sequence![index - 1] : null;
  const next = index >= 0 && sequence && index < sequence.length - 1 ? sequence[index + 1] : null;

  useEffect(() => {
    if (load.status !== 'ready') return;
    // Neighbours load in the background once this image is up.
    const t = window.setTimeout(() => {
      if (next) prefetchImage(next, orgId, project.id);
      if (previous) prefetchImage(previous, orgId, project.id);
    }, 300);
    return () => window.clearTimeout(t);
  }, [load.status, next, previous, orgId, project.id]);

  // ---------------------------------------------------------------- loading an image
  useEffect(() => {
    let live = true;
    const generation = ++openGeneration.current;
    const ref = { imageId: image.id, projectId: project.id, imageFilename: image.filename };
    opening.starting(image.id);
    setLoad({ imageId: image.id, status: 'loading' });
    progress.clear();
    setRecovered(null);
    auto.setImage(image.filename);
    // A viewer's editor never saves: no save-manager slot, no link to it.
    const saving = !readOnly;
    if (saving) link.expect(image.id);
    let opened = false;
    // Opened in the save manager but left before it was attached: close it, unless this screen
    // is already opening the same image again.
    const abandon = () => {
      if (!opened || link.image?.imageId === image.id) return;
      opened = false;
      if (openGeneration.current === generation || shownImage.current !== image.id) saver.close(image.id);
    };
    const report = (from: number, to: number) => (done: number, total: number) => progress.report(image.id, total, from + (to - from) * (total ? done / total : 1));
    (async () => {
      const { pixels, body } = await openImage(image, orgId, project.id);
      if (!live) return;
      editor.setImageSize({ width: pixels.width, height: pixels.height });
      const data = await parseLoadData(body, { isCancelled: () => !live, onCount: (total) => progress.report(image.id, total, 0), onProgress: report(0, PARSE_SHARE) });
      if (!data || !live) return;
      opening.loadedVersion(image.id, data.version);
      // The document is validated and built in slices while the save manager looks for work this
      // device kept for the image; if there is some, that document is loaded instead.
      const building = link.load(data.annotations, { onProgress: report(PARSE_SHARE, 1) });
      building.catch(() => undefined); // awaited below, unless the recovered document replaces it
      let recovery: Awaited<ReturnType<typeof saver.open>> = null;
      if (saving) {
        recovery = await saver.open(ref, data);
        opened = true;
      }
      if (!live) return abandon();
      const loaded = recovery ? await link.load(recovery.annotations, { onProgress: report(PARSE_SHARE, 1) }) : await building;
      if (!loaded || !live) return abandon();
      if (recovery) setRecovered({ imageId: image.id, changes: recovery.changes });
      if (saving) link.attach(ref);
      // Opened again after a restore: the view stays where the user was looking.
      const restoredCamera = opening.restoredCamera(image.id);
      if (restoredCamera) editor.setCamera(restoredCamera);
      else editor.fitToScreen();
      sourceOwner.current = image.id;
      setImageSource((prev) => {
        // The same pixels again (reopened image): the renderer already has them.
        if (prev === pixels.source) setDrawnImage(image.id);
        return pixels.source;
      });
      setLoad({ imageId: image.id, status: 'ready' });
      opening.finished(image.id);
    })().catch((err: unknown) => {
      abandon();
      if (!live) return;
      console.error('Failed to open image', err);
      setLoad({ imageId: image.id, status: 'error', message: loadErrorMessage(err) });
      opening.finished(image.id);
    });
    return () => {
      live = false;
      // A load in progress stops at its next slice; the document stays as it is until the next one.
      editor.cancelLoad();
      // Captures the document now; the save still happens after the editor moves on.
      link.detach(image.id);
    };
    // Reload only when the image itself changes (or the role starts or stops allowing edits, or a
    // restore made another version current).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [image.id, editor, readOnly, reopenToken]);

  // ---------------------------------------------------------------- saving
  useEffect(() => {
    const offSaved = saver.onSaved(followSave);
    const onHide = () => {
      link.flush();
      saver.flushOnPageHide();
    };
    const onVisibility = () => document.visibilityState === 'hidden' && onHide();
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      offSaved();
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [saver, link, followSave]);

  // ---------------------------------------------------------------- tools and classes
  const pickClassFor = useCallback(
    (type: AnnotationType | undefined) => {
      if (!type) return;
      const active = editor.getView().activeClass;
      if (active && classByName.get(active)?.type === type) return;
      const remembered = lastClassByType.current.get(type);
      const choice = (remembered && classByName.get(remembered)?.type === type ? remembered : null) ?? classes.find((c) => c.type === type)?.name ?? null;
      editor.setActiveClass(choice);
    },
    [editor, classByName, classes],
  );

  const chooseTool = useCallback(
    (t: EditorToolId) => {
      if (readOnly && !VIEW_TOOLS.includes(t)) return;
      setTool(t);
      editor.setTool(ENGINE_TOOL[t]);
      pickClassFor(TOOL_CLASS_TYPE[t]);
      if (t === 'auto') auto.activate(image.filename);
      else auto.deactivate();
    },
    [editor, pickClassFor, auto, image.filename, readOnly],
  );
  // Made read-only while a drawing tool was chosen: back to Select.
  useEffect(() => {
    if (readOnly && !VIEW_TOOLS.includes(toolRef.current)) chooseTool('select');
  }, [readOnly, chooseTool]);

  const chooseClass = (name: string) => {
    const cls = classByName.get(name);
    if (tool === 'select') {
      editor.setSelectedClass(name);
      return;
    }
    if (cls) lastClassByType.current.set(cls.type, name);
    editor.setActiveClass(name);
  };

  // Usage records for shapes created on the image the editor holds (spec section 7).
  const recordUsage = useCallback(
    (ids: Iterable<string>) => {
      const held = link.image;
      if (held) void recordCreated({ orgId, projectId: held.projectId, imageId: held.imageId }, [...ids].map((id) => editor.getAnnotation(id)));
    },
    [link, orgId, editor],
  );

  // A drawing tool was used without a class: offer to create one.
  useEffect(
    () =>
      editor.onEvent((e) => {
        if (e.type === 'created') {
          recordUsage([e.id]);
        } else if (e.type === 'needs-class') {
          if (classes.length === 0) setNoClassesOpen(true);
          else setAddClassType(TOOL_CLASS_TYPE[e.tool === 'pan' ? 'auto' : (e.tool as EditorToolId)] ?? 'box');
        } else if (e.type === 'too-small') {
          toast('Boxes must be at least 10 × 10 pixels', 'neutral', MESSAGE_MS);
        } else if (e.type === 'invalid-hole') {
          toast('That hole would split the polygon; draw it inside the shape', 'danger', 4000);
        } else if (e.type === 'pasted' && e.count > 0) {
          // Paste and Copy Previous: one creation action.
          recordUsage(e.ids);
          toast(`Pasted ${e.count} annotation(s)`, 'neutral', MESSAGE_MS);
        }
      }),
    [editor, classes.length, recordUsage],
  );

  const addClass = async (c: ProjectClass): Promise<string | null> => {
    try {
      const res = await api.updateProject(project.id, { classes: [...classes, c] });
      qc.setQueryData(projectKey(project.id), res.project);
      updateSelection(res.project);
      lastClassByType.current.set(c.type, c.name);
      if (tool === 'select') editor.setSelectedClass(c.name);
      else if (TOOL_CLASS_TYPE[tool] === c.type) editor.setActiveClass(c.name);
      toast(`Class '${c.name}' added`, 'success', MESSAGE_MS);
      return null;
    } catch (err) {
      return serverMessage(err, 'Failed to add the class. Please try again.');
    }
  };

  // The picker: drawing tools list their type; Select with a selection relabels it.
  const selectedShapes = useMemo(() => [...view.selected].map((id) => editor.getAnnotation(id)).filter((a): a is EditorAnnotation => Boolean(a)), [view.selected, editor, documentVersion]); // eslint-disable-line react-hooks/exhaustive-deps
  const pickerType: AnnotationType | null =
    tool === 'select' ? (selectedShapes.length && selectedShapes.every((a) => classTypeOf(a) === classTypeOf(selectedShapes[0]!)) ? classTypeOf(selectedShapes[0]!) : null) : (TOOL_CLASS_TYPE[tool] ?? null);
  const selectionClass = selectedShapes.length && selectedShapes.every((a) => a.class === selectedShapes[0]!.class) ? selectedShapes[0]!.class : null;
  const showPicker = tool !== 'select' || selectedShapes.length > 0;

  // ---------------------------------------------------------------- commands
  // Copying works on an earlier version too: its shapes can be pasted into the current document.
  const copy = useCallback(
    (from: Editor = editor) => {
      const shapes = from.copy();
      if (shapes.length === 0) return;
      copyShapes(shapes, image.id);
      toast(`Copied ${shapes.length} annotation(s)`, 'neutral', MESSAGE_MS);
    },
    [editor, image.id],
  );

  const paste = useCallback(() => {
    if (readOnly) return;
    const clip = takePaste(image.id);
    if (clip) editor.paste(clip.shapes, clip.offset);
  }, [editor, image.id, readOnly]);

  const canCopyPrevious = Boolean(previous && previous.annotation_count > 0);
  const copyPrevious = async () => {
    if (!previous || copyingPrevious || readOnly || previewing) return;
    setCopyingPrevious(true);
    try {
      const { annotations } = await loadAnnotations(previous, project.id);
      if (link.image?.imageId !== image.id) return;
      if (annotations.length === 0) {
        toast('The previous image has no annotations', 'neutral', MESSAGE_MS);
        return;
      }
      editor.paste(annotations.map(storedToEditor), 0);
    } catch (err) {
      toast(serverMessage(err, 'Failed to copy the previous annotations. Please try again.'), 'danger', 5000);
    } finally {
      setCopyingPrevious(false);
    }
  };

  // Complete: the mask becomes a segmentation annotation of the chosen class (one undo step),
  // saved through the same pipeline as every other edit.
  const completeMask = useCallback(() => {
    const cls = editor.getView().activeClass;
    if (!auto.canComplete()) return;
    if (!cls) {
      if (classes.length === 0) setNoClassesOpen(true);
      else setAddClassType('polygon');
      return;
    }
    const done = auto.complete();
    if (!done) return;
    const { mask, pointCount } = done;
    const [x, y, width, height] = mask.bbox;
    const id = typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}`;
    try {
      editor.execute('create', {
        annotation: {
          id,
          type: 'segmentation',
          class: cls,
          x,
          y,
          width,
          height,
          rle: mask.mask,
          extra: { score: mask.score, sam2_area: mask.area, point_count: pointCount, inference_time: mask.inference_time, tool_used: `auto-annotate:${mask.backend}` },
        },
      });
      editor.select([id]);
      recordUsage([id]);
    } catch (err) {
      console.error('Error saving the mask:', err);
      toast('The mask could not be added. Please try again.', 'danger', 5000);
    }
  }, [editor, auto, classes.length, recordUsage]);

  const removeAll = () => {
    const ids = editor.getOrderedIds();
    if (ids.length === 0 || readOnly || previewing) return;
    editor.execute('delete', { ids: [...ids] });
    toast(`Removed ${ids.length} annotation(s). Undo with Ctrl+Z`, 'neutral', 4000);
  };

  const goPrevious = useCallback(() => previous && onNavigate(previous), [previous, onNavigate]);
  const goNext = useCallback(() => next && onNavigate(next), [next, onNavigate]);

  // ---------------------------------------------------------------- keyboard
  useEditorKeys({
    editor,
    previewEditor,
    previewing,
    documentReady: readyRef,
    tool: toolRef,
    auto,
    completeMask,
    chooseTool,
    goPrevious,
    goNext,
    copy,
    paste,
    toggleHistory: historyView.toggleHistory,
    leavePreview: historyView.leavePreview,
  });

  useEffect(() => {
    editor.setTransparency(transparency);
    previewEditor.setTransparency(transparency);
  }, [editor, previewEditor, transparency]);

  const toggleSidebar = () => {
    setCollapsed((c) => {
      writeStorage(SIDEBAR_KEY, !c);
      return !c;
    });
  };
  const changeTransparency = (v: number) => {
    setTransparency(v);
    writeStorage(TRANSPARENCY_KEY, v);
  };

  const discardRecovered = async () => {
    if (!recovered) return;
    await saver.discard(recovered.imageId);
    setRecovered(null);
    try {
      const data = await loadAnnotations(image, project.id);
      if (!(await link.load(data.annotations))) return;
      await saver.open({ imageId: image.id, projectId: project.id, imageFilename: image.filename }, data);
    } catch (err) {
      toast(serverMessage(err, 'Failed to reload the saved annotations'), 'danger', 5000);
    }
  };

  const ready = load.status === 'ready' && load.imageId === image.id && drawnImage === image.id;
  const documentLoading = load.imageId !== image.id || load.status === 'loading';
  // Keys wait for this image's document, not for its pixels to be drawn.
  readyRef.current = load.status === 'ready' && load.imageId === image.id;
  const imageSize = editor.getImageSize();
  const imageArea = imageSize ? imageSize.width * imageSize.height : null;
  const onImageReady = useCallback((err: Error | null) => {
    if (err) {
      console.error('Failed to open the image pixels', err);
      setLoad((l) => ({ imageId: l.imageId, status: 'error', message: 'The image file could not be opened. It may be damaged or in a format this browser cannot read.' }));
      return;
    }
    setDrawnImage(sourceOwner.current);
  }, []);
  const cursor = view.hovered && tool === 'select' ? 'move' : tool === 'select' ? 'default' : tool === 'auto' ? 'crosshair' : 'crosshair';
  // While an earlier version is on the canvas, the zoom, the settings and the list work on it.
  const shownEditor = previewShown ? previewEditor : editor;
  const stageReady = ready || previewShown;

  return (
    <div className={styles.page}>
      <header className={styles.bar}>
        <Button variant="ghost" size="sm" icon={<ArrowLeft />} onClick={onBack}>
          Back
        </Button>
        <span className={styles.barDivider} aria-hidden="true" />
        <IconButton label="Previous image (,)" icon={<ChevronLeft />} tooltipSide="bottom" disabled={!previous} onClick={goPrevious} />
        <IconButton label="Next image (.)" icon={<ChevronRight />} tooltipSide="bottom" disabled={!next} onClick={goNext} />
        <div className={styles.imageTitle}>
          <h1 className={styles.name} title={image.filename}>
            {image.filename}
          </h1>
          {sequence && index >= 0 ? (
            <span className={styles.position}>
              {(index + 1).toLocaleString()} of {sequence.length.toLocaleString()}
            </span>
          ) : null}
        </div>
        <div className={styles.barEnd}>
          {viewOnlyReason ? (
            <ViewOnlyIndicator reason={viewOnlyReason} />
          ) : (
            <SaveIndicator status={gathering && (saveStatus.state === 'saved' || saveStatus.state === 'conflict-merged') ? { ...saveStatus, state: 'pending', label: 'Unsaved changes' } : saveStatus} />
          )}
          <span className={styles.projectName}>{project.name}</span>
        </div>
      </header>

      <div className={styles.body}>
        <ToolPalette tool={previewing ? 'select' : tool} onChoose={previewing ? () => undefined : chooseTool} lockedReason={previewing ? PREVIEW_REASON : viewOnlyReason} />
        <main className={styles.stage}>
          <EditorCanvas
            editor={editor}
            classColor={classColor}
            colorsKey={colorsKey}
            imageSource={imageSource}
            onImageReady={onImageReady}
            onCanvasClick={(x, y, e) => {
              if (tool !== 'auto') return false;
              const [ix, iy] = editor.screenToImage(x, y);
              const size = editor.getImageSize();
              if (size && (ix < 0 || iy < 0 || ix >= size.width || iy >= size.height)) return true;
              auto.click(ix, iy, e.shiftKey);
              return true;
            }}
            cursor={cursor}
            label={`Image ${image.filename}`}
          />
          {previewShown ? (
            <div className={styles.previewLayer} data-drawn={preview.drawn || undefined}>
              <EditorCanvas
                editor={previewEditor}
                classColor={classColor}
                colorsKey={colorsKey}
                imageSource={imageSource}
                onImageReady={historyView.onPreviewImageReady}
                cursor="default"
                label={`Image ${image.filename}, version ${preview.shown}, read only`}
                testId="version-canvas"
              />
            </div>
          ) : null}
          {preview.state ? (
            <VersionBanner state={preview.state} restoreDeniedReason={viewOnlyReason} onRestore={historyView.openRestore} onBack={historyView.leavePreview} onRetry={() => preview.show(preview.state!.entry)} />
          ) : null}
          {showPicker && ready && !readOnly && !previewing ? (
            <div className={styles.pickerDock}>
              <ClassPicker
                classes={classes}
                type={pickerType}
                value={tool === 'select' ? selectionClass : view.activeClass}
                placeholder={tool === 'select' ? (selectedShapes.length > 1 ? 'Mixed classes' : 'Choose a class') : 'Choose a class'}
                onChoose={chooseClass}
                onAddClass={() => (classes.length === 0 && tool !== 'select' ? setNoClassesOpen(true) : setAddClassType(pickerType ?? 'box'))}
              />
            </div>
          ) : null}
          {recovered && recovered.imageId === image.id && !previewing ? (
            <div className={styles.recovered} role="status">
              <History aria-hidden="true" />
              <span>
                Restored {recovered.changes} unsaved change{recovered.changes === 1 ? '' : 's'} kept on this device. They are being saved.
              </span>
              <Button size="sm" variant="ghost" onClick={() => void discardRecovered()}>
                Discard
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setRecovered(null)}>
                Keep
              </Button>
            </div>
          ) : null}
          {tool === 'auto' && ready && !previewing ? <MaskOverlay editor={editor} state={autoState} /> : null}
          {tool === 'auto' && ready && !previewing ? (
            <AutoAnnotateBar
              state={autoState}
              imageArea={imageArea}
              onComplete={completeMask}
              onClear={() => auto.clear()}
            />
          ) : null}
          {stageReady ? <ZoomControls editor={shownEditor} /> : null}
          {stageReady ? (
            <div className={styles.settingsDock}>
              <SettingsPanel editor={shownEditor} image={image} transparency={transparency} onTransparency={changeTransparency} />
            </div>
          ) : null}
          {!stageReady ? (
            <div className={styles.stageOverlay}>
              {load.status === 'error' && load.imageId === image.id ? (
                <div className={styles.stageMessage} role="alert">
                  <TriangleAlert aria-hidden="true" />
                  <p>{load.message}</p>
                  <Button size="sm" onClick={() => window.location.reload()}>
                    Try again
                  </Button>
                </div>
              ) : (
                <div className={styles.stageMessage}>
                  <Spinner size="lg" />
                  <p>Loading image...</p>
                  <LoadingProgress store={progress} imageId={image.id} />
                </div>
              )}
            </div>
          ) : null}
        </main>
        <AnnotationList
          editor={shownEditor}
          view={previewShown ? historyView.previewView : view}
          documentVersion={previewShown ? historyView.previewDocumentVersion : documentVersion}
          classColor={classColor}
          collapsed={collapsed}
          onToggleCollapsed={toggleSidebar}
          canCopyPrevious={canCopyPrevious && ready && !previewing}
          copyingPrevious={copyingPrevious}
          onCopyPrevious={() => void copyPrevious()}
          onRemoveAll={removeAll}
          readOnlyReason={previewShown ? PREVIEW_REASON : viewOnlyReason}
          loading={previewShown ? false : documentLoading}
          historyOpen={historyView.historyOpen}
          onToggleHistory={() => historyView.toggleHistory(false)}
          history={<HistoryPanel query={historyView.history} shownVersion={preview.state?.version ?? null} onChoose={historyView.chooseVersion} autoFocus={historyView.historyFocus} />}
          notice={
            previewShown ? (
              <p className={styles.listNotice}>
                <History aria-hidden="true" />
                <span>Version {preview.shown?.toLocaleString()}, read only</span>
              </p>
            ) : null
          }
          empty={previewShown ? { title: 'No annotations in this version', text: 'The image had no annotations at this version.' } : undefined}
        />
      </div>

      <Dialog
        open={noClassesOpen}
        onOpenChange={setNoClassesOpen}
        title="No classes available"
        tone="warning"
        icon={<TriangleAlert />}
        description="You need to create annotation classes before you can start annotating. Would you like to manage your project classes?"
        footer={
          <>
            <Button onClick={() => setNoClassesOpen(false)}>Cancel</Button>
            <Button
              variant="primary"
              onClick={() => {
                setNoClassesOpen(false);
                onManageClasses();
              }}
            >
              Manage Classes
            </Button>
          </>
        }
      />
      <RestoreDialog
        open={historyView.restoreOpen && previewing}
        state={preview.state}
        currentVersion={historyView.currentVersion}
        filename={image.filename}
        unsaved={!readOnly && (gathering || saveStatus.unsavedImages > 0)}
        busy={historyView.restoring}
        error={historyView.restoreError}
        onConfirm={() => void historyView.restoreVersion()}
        onClose={historyView.closeRestore}
      />
      <AddClassDialog
        open={addClassType !== null}
        classes={classes}
        title={`Add New ${TYPE_NAMES[addClassType ?? 'box']} Class`}
        initialType={addClassType ?? 'box'}
        onClose={() => setAddClassType(null)}
        onAdd={addClass}
      />
    </div>
  );
}

function loadErrorMessage(err: unknown): string {
  if (err instanceof Error && err.name === 'ZodError') return 'The annotations saved for this image are not valid, so the editor cannot open them.';
  if (err instanceof SyntaxError) return 'The annotations of this image could not be read.';
  return err instanceof Error && !('status' in err) ? err.message : serverMessage(err, 'The image could not be loaded.');
}

function ZoomControls({ editor }: { editor: Editor }) {
  const camera = useCamera(editor);
  return (
    <div className={styles.zoom} role="group" aria-label="Zoom">
      <IconButton label="Zoom out" icon={<ZoomOut />} onClick={() => editor.zoomOut()} />
      <span className={styles.zoomValue}>{Math.round(camera.scale * 100)}%</span>
      <IconButton label="Zoom in" icon={<ZoomIn />} onClick={() => editor.zoomIn()} />
      <IconButton label="Fit to screen" icon={<Maximize />} onClick={() => editor.fitToScreen()} />
    </div>
  );
}

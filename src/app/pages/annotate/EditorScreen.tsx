// The annotation editor (spec section 2 'Annotation editor', section 4 'Editor'): top bar,
// tool palette, class picker, the engine's canvas, the Annotations sidebar and the settings
// panel. The Editor and the renderer live as long as the screen; each image is loaded into them,
// in slices (parse, validation and build never block the main thread for long; a progress bar for
// large documents). A role without annotations.write gets the same screen read-only: the engine
// refuses edits (Editor.setReadOnly), editing controls are disabled, nothing is saved.
// The sidebar's History view (issue 14) lists the image's versions; one of them can be looked at
// over the canvas and restored as a new version.
// This file is the layout. The session (src/app/editor-session, through hooks/useEditorSession)
// owns the editor, the save link, the live client, Auto-Annotate, the History and the commands;
// the screen's behaviour is in ./hooks as readers of it: saving (useEditorSaving), opening an
// image (useImageLoading), the sequence (useSequence), tools and classes (useToolsAndClasses),
// the engine's events (useEditorEvents), the keyboard (useEditorKeys), the History view
// (useHistoryView) and the layout preferences (usePanelPrefs).
// Each panel sits behind its own ErrorBoundary (`guarded`, issue 30): a render error in one shows
// a message with Try again in its place, and the canvas, the other panels and saving go on.
import { useCallback, useEffect, useLayoutEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { roleCan } from '../../../contract/permissions';
import type { Image } from '../../../contract/images';
import { FALLBACK_CLASS_COLOR, type Project } from '../../../contract/projects';
import { deniedReason, ROLE_LABEL } from '../../stores/permissions';
import { useSession } from '../../stores/session';
import { AddClassDialog } from '../../components/classes/AddClassDialog';
import { AnnotationList } from './AnnotationList';
import { AttributesPanel, useClassAttributeDefaults } from './AttributesPanel';
import { AutoAnnotateBar, promptInfo, useAutoState } from './AutoAnnotateBar';
import { ClassPicker, TYPE_NAMES } from './ClassPicker';
import { EditorCanvas } from './EditorCanvas';
import { EditorTopBar, NoClassesDialog, RecoveredNotice, StageOverlay, VersionCanvas, VersionNotice, ZoomControls } from './EditorChrome';
import { HistoryPanel } from './HistoryPanel';
import { useEditorEvents } from './hooks/useEditorEvents';
import { useEditorKeys } from './hooks/useEditorKeys';
import { useEditorSaving } from './hooks/useEditorSaving';
import { useEditorSession } from './hooks/useEditorSession';
import { useHistoryView } from './hooks/useHistoryView';
import { useImageLoading } from './hooks/useImageLoading';
import { useImageStage } from './hooks/useImageStage';
import { useLiveImage, useSendSelection } from './hooks/useLiveImage';
import { usePanelPrefs, useTransparency } from './hooks/usePanelPrefs';
import { useSequence } from './hooks/useSequence';
import { useToolsAndClasses } from './hooks/useToolsAndClasses';
import { PeerAvatars } from '../../components/PeerAvatars';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import { PeerOverlay } from './PeerOverlay';
import { SettingsPanel } from './SettingsPanel';
import { ToolPalette } from './ToolPalette';
import { useDocumentVersion, useEditorView } from './useEditor';
import { useViewSettings } from '../../stores/viewSettings';
import { useEditorWorkflow } from './workflow/useEditorWorkflow';
import { RestoreDialog, VersionBanner } from './VersionPreview';
import { PREVIEW_REASON } from '../../editor-session/history';
import styles from './AnnotatePage.module.css';

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

/** A panel behind its own error boundary; `inline` for the small ones over the canvas. */
function guarded(what: string, panel: ReactNode, resetKey?: unknown, layout?: 'inline'): ReactNode {
  return (
    <ErrorBoundary what={what} detail={layout ? undefined : 'Your annotations are still saved.'} layout={layout} resetKey={resetKey}>
      {panel}
    </ErrorBoundary>
  );
}

// Long because it is the screen's layout: each hook is one line and each panel one element; the
// behaviour is in the session and ./hooks.
export function EditorScreen({ project, orgId, image, sequence, onNavigate, onBack, onManageClasses }: EditorScreenProps) {
  // The session owns the editor, saving, the live client and Auto-Annotate (src/app/editor-session).
  const session = useEditorSession(project.id, orgId);
  const { editor, auto } = session;
  const autoState = useAutoState(auto);
  const view = useEditorView(editor);
  const documentVersion = useDocumentVersion(editor);
  const { saver, saveStatus, shownStatus, gathering, link } = useEditorSaving(session, project.id);

  // The role in this project's organization decides whether the editor may change anything.
  const role = useSession((s) => s.organizations.find((o) => o.id === orgId)?.user_role ?? null);
  const readOnly = !role || !roleCan(role, 'annotations.write');
  const viewOnlyReason = readOnly ? deniedReason(role ? ROLE_LABEL[role] : 'member', 'edit annotations') : null;
  useLayoutEffect(() => session.setReadOnly(readOnly), [session, readOnly]);

  const classes = project.classes;
  const classByName = useMemo(() => new Map(classes.map((c) => [c.name, c])), [classes]);
  const classColor = useCallback((name: string) => classByName.get(name)?.color ?? FALLBACK_CLASS_COLOR, [classByName]);
  const colorsKey = classes.map((c) => `${c.name}:${c.color}`).join('|');
  // New shapes get their class's default attributes; a class change conforms them (issue 19).
  useClassAttributeDefaults(editor, classes);

  const panels = usePanelPrefs();
  const historyView = useHistoryView({ session, imageId: image.id, projectId: project.id, collapsed: panels.collapsed, expandSidebar: panels.expandSidebar });
  const { history, state: preview, previewing, previewShown } = historyView;
  const previewEditor = history.previewEditor;
  // Live co-editing: changes saved elsewhere come into the document; the people on the image.
  const [liveReopen, setLiveReopen] = useState(0);
  const liveImage = useLiveImage({ imageId: image.id, projectId: project.id, readOnly, link, saver, opening: history.opening, documentReady: () => session.documentReady, reopen: () => setLiveReopen((n) => n + 1) });
  const loading = useImageLoading({ session, image, readOnly, opening: liveImage.liveOpening, reopenToken: preview.reopenToken + liveReopen });
  const { load, ready } = loading;
  const documentIn = load.status === 'ready' && load.imageId === image.id;
  const { resync } = liveImage;
  const showPeers = useViewSettings((s) => s.collaborators);
  useEffect(() => {
    if (documentIn) resync();
  }, [documentIn, resync]);
  useSendSelection(editor, documentIn, liveImage.peers, liveImage.sendSelection);
  const nav = useSequence({ editor, image, sequence, orgId, projectId: project.id, ready: load.status === 'ready', onNavigate });
  const nextName = nav.next?.filename ?? null;
  useEffect(() => auto.setNext(nextName), [auto, nextName]);
  const tools = useToolsAndClasses({ editor, project, classByName, imageFilename: image.filename, readOnly, auto, view, documentVersion });
  const { tool, picker } = tools;
  useEditorEvents({ editor, askForClass: tools.askForClass });
  const copyingPrevious = useSyncExternalStore(session.subscribeCopyingPrevious, session.isCopyingPrevious);
  const stage = useImageStage({ image, orgId, projectId: project.id, saver, deniedReason: role && roleCan(role, 'images.stage') ? null : deniedReason(role ? ROLE_LABEL[role] : 'member', 'set the stage') });
  useEditorKeys({ session, imageId: image.id, chooseTool: tools.chooseTool, goPrevious: nav.goPrevious, goNext: nav.goNext, toggleHistory: historyView.toggleHistory, classByNumber: tools.classByNumber, cycleClass: tools.cycleClass, openStage: stage.openPicker });
  useTransparency(editor, previewEditor, panels.transparency);
  // The review loop (issue 29): Submit / Accept / Reject in the top bar, the issues panel and pins.
  const workflow = useEditorWorkflow({ editor, image, status: stage.status, orgId, projectId: project.id, saver, link, previewing, documentIn, onNavigate, onBack });

  const imageSize = editor.getImageSize();
  const imageArea = imageSize ? imageSize.width * imageSize.height : null;
  // While an earlier version is on the canvas, the zoom, the settings and the list work on it.
  const shownEditor = previewShown ? previewEditor : editor;
  const stageReady = ready || loading.keepPrevious || previewShown;
  const autoShown = tool === 'auto' && ready && !previewing;

  return (
    <div className={styles.page}>
      <EditorTopBar image={image} projectName={project.name} index={nav.index} count={sequence?.length} hasPrevious={!!nav.previous} hasNext={!!nav.next} onBack={onBack} goPrevious={nav.goPrevious} goNext={nav.goNext} viewOnlyReason={viewOnlyReason} saveStatus={shownStatus} stage={stage} peers={showPeers ? <PeerAvatars peers={liveImage.peers} selfId={liveImage.userId} /> : null} workflow={guarded('The review actions', workflow.actions, image.id, 'inline')} />

      <div className={styles.body}>
        <ToolPalette tool={previewing ? 'select' : tool} onChoose={previewing ? () => undefined : tools.chooseTool} lockedReason={previewing ? PREVIEW_REASON : viewOnlyReason} />
        <main className={styles.stage}>
          <EditorCanvas
            editor={editor}
            classColor={classColor}
            colorsKey={colorsKey}
            imageSource={loading.imageSource}
            onImageReady={loading.onImageReady}
            cursor={tools.cursor}
            label={`Image ${image.filename}`}
            onPointerImage={documentIn ? liveImage.sendCursor : undefined}
          />
          {showPeers && documentIn && !previewShown ? guarded("The other people's cursors", <PeerOverlay editor={editor} peers={liveImage.peers} presence={liveImage.presence} documentVersion={documentVersion} now={liveImage.now} />, image.id, 'inline') : null}
          {previewShown ? null : guarded('The issues', workflow.layer, image.id, 'inline')}
          {previewShown ? <VersionCanvas editor={previewEditor} drawn={preview.drawn} version={preview.shown} filename={image.filename} classColor={classColor} colorsKey={colorsKey} imageSource={loading.imageSource} onImageReady={(err) => history.drawn(err)} /> : null}
          {preview.preview ? (
            <VersionBanner state={preview.preview} restoreDeniedReason={viewOnlyReason} onRestore={() => history.openRestore(readOnly)} onBack={() => history.leave()} onRetry={() => history.show(preview.preview!.entry)} />
          ) : null}
          {picker.show && ready && !readOnly && !previewing ? (
            <div className={styles.pickerDock}>
              {guarded('The class picker', <ClassPicker classes={classes} type={picker.type} value={picker.value} placeholder={picker.placeholder} onChoose={picker.onChoose} onAddClass={picker.onAddClass} onManageClasses={onManageClasses} />, undefined, 'inline')}
            </div>
          ) : null}
          {loading.recovered && !previewing ? <RecoveredNotice changes={loading.recovered.changes} onDiscard={() => void loading.discardRecovered()} onKeep={loading.keepRecovered} /> : null}
          {autoShown ? guarded('Auto-Annotate', <AutoAnnotateBar state={autoState} prompt={promptInfo(view)} imageArea={imageArea} onComplete={() => void editor.acceptProposal()} onClear={() => editor.clearProposal()} onOutput={(o) => auto.setOutput(o)} classPicker={readOnly ? null : <ClassPicker classes={classes} type="polygon" value={view.activeClass} placeholder="Choose a class" onChoose={picker.onChoose} onAddClass={picker.onAddClass} onManageClasses={onManageClasses} attention={picker.attention} label="Mask class" />} />, undefined, 'inline') : null}
          {stageReady ? <ZoomControls editor={shownEditor} /> : null}
          {stageReady ? (
            <div className={styles.settingsDock}>
              {guarded('The view settings', <SettingsPanel editor={shownEditor} image={image} transparency={panels.transparency} onTransparency={panels.changeTransparency} />, undefined, 'inline')}
            </div>
          ) : null}
          {!stageReady ? <StageOverlay load={load} imageId={image.id} progress={loading.progress} /> : null}
        </main>
        {guarded('The annotation list', <AnnotationList
          editor={shownEditor}
          view={previewShown ? historyView.previewView : view}
          documentVersion={previewShown ? historyView.previewDocumentVersion : documentVersion}
          classColor={classColor}
          collapsed={panels.collapsed}
          onToggleCollapsed={panels.toggleSidebar}
          canCopyPrevious={Boolean(nav.previous && nav.previous.annotation_count > 0) && ready && !previewing}
          copyingPrevious={copyingPrevious}
          onCopyPrevious={() => nav.previous && void session.copyPrevious(nav.previous, image.id)}
          onRemoveAll={() => session.removeAll()}
          classes={classes}
          onSetClass={tools.setClassOf}
          readOnlyReason={previewShown ? PREVIEW_REASON : viewOnlyReason}
          loading={previewShown ? false : loading.documentLoading}
          historyOpen={historyView.historyOpen}
          onToggleHistory={() => historyView.toggleHistory(false)}
          history={guarded('The history', <HistoryPanel query={historyView.versions} shownVersion={preview.preview?.version ?? null} onChoose={(entry, current) => history.choose(entry, current, session.documentReady)} autoFocus={historyView.historyFocus} />, image.id)}
          notice={previewShown ? <VersionNotice version={preview.shown} /> : null}
          empty={previewShown ? { title: 'No annotations in this version', text: 'The image had no annotations at this version.' } : undefined}
          attributes={
            <AttributesPanel
              editor={shownEditor}
              view={previewShown ? historyView.previewView : view}
              documentVersion={previewShown ? historyView.previewDocumentVersion : documentVersion}
              classes={classes}
              readOnlyReason={previewShown ? PREVIEW_REASON : viewOnlyReason}
            />
          }
        />, image.id)}
      </div>

      <NoClassesDialog open={tools.noClassesOpen} onOpenChange={tools.setNoClassesOpen} onManageClasses={onManageClasses} />
      <RestoreDialog
        open={preview.restoreOpen && previewing}
        state={preview.preview}
        currentVersion={historyView.currentVersion}
        filename={image.filename}
        unsaved={!readOnly && (gathering || saveStatus.unsavedImages > 0)}
        busy={preview.restoring}
        error={preview.restoreError}
        onConfirm={() => void history.restore({ readOnly, currentVersion: historyView.currentVersion, deniedReason: viewOnlyReason })}
        onClose={() => history.closeRestore()}
      />
      <AddClassDialog open={tools.addClassType !== null} classes={classes} title={`Add New ${TYPE_NAMES[tools.addClassType ?? 'box']} Class`} initialType={tools.addClassType ?? 'box'} onClose={tools.closeAddClass} onAdd={tools.addClass} />
    </div>
  );
}

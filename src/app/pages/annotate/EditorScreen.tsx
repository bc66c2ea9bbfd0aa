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
// the hooks in ./hooks read it and keep what React draws: the session and its state
// (useEditorSession), saving (useEditorSaving), the layout preferences (usePanelPrefs), the History
// view (useHistoryView), the open image and its live co-editing (useOpenImage), the sequence
// (useSequence), tools and classes (useToolsAndClasses), the stage (useImageStage), the keyboard
// (useEditorKeys) and the review loop (workflow/useEditorWorkflow).
// Each panel sits behind its own ErrorBoundary (`guarded`, issue 30): a render error in one shows
// a message with Try again in its place, and the canvas, the other panels and saving go on.
import { useCallback, useState, type ReactNode } from 'react';
import type { Image } from '../../../contract/images';
import type { Project } from '../../../contract/projects';
import { PREVIEW_REASON } from '../../editor-session/history';
import { AddClassDialog } from '../../components/classes/AddClassDialog';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import { PeerAvatars } from '../../components/PeerAvatars';
import { AnnotationList } from './AnnotationList';
import { AttributesPanel } from './AttributesPanel';
import { AutoAnnotateBar, promptInfo } from './AutoAnnotateBar';
import { TYPE_NAMES } from '../../editor-session/classKeys';
import { ClassPicker } from './ClassPicker';
import { EditorCanvas } from './EditorCanvas';
import { EditorTopBar, NoClassesDialog, RecoveredNotice, StageOverlay, VersionCanvas, VersionNotice, ZoomControls } from './EditorChrome';
import { HistoryPanel } from './HistoryPanel';
import { useEditorKeys } from './hooks/useEditorKeys';
import { useEditorSaving } from './hooks/useEditorSaving';
import { useEditorSession, useSessionView } from './hooks/useEditorSession';
import { useHistoryView } from './hooks/useHistoryView';
import { useImageStage } from './hooks/useImageStage';
import { useOpenImage } from './hooks/useOpenImage';
import { usePanelPrefs } from './hooks/usePanelPrefs';
import { useSequence } from './hooks/useSequence';
import { useToolsAndClasses } from './hooks/useToolsAndClasses';
import { PeerOverlay } from './PeerOverlay';
import { PredictionsBar } from './PredictionsBar';
import { SettingsPanel } from './SettingsPanel';
import { ToolPalette } from './ToolPalette';
import { useLoadShortcuts } from './hooks/useShortcuts';
import { NARROW_SCREEN, useMediaQuery } from '../../lib/useMediaQuery';
import { useRemoveAll } from './RemoveAllDialog';
import { RestoreDialog, VersionBanner } from './VersionPreview';
import { useEditorWorkflow } from './workflow/useEditorWorkflow';
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
  // The session owns the editor, saving, the live client, Auto-Annotate, the History and the
  // commands (src/app/editor-session); the role decides whether it may edit.
  const { session, access } = useEditorSession(project.id, orgId);
  const { editor, auto, history } = session;
  const { readOnly, viewOnlyReason } = access;
  const { view, documentVersion, autoState, copyingPrevious } = useSessionView(session);
  const { saveStatus, shownStatus, gathering } = useEditorSaving(session, project.id);
  const panels = usePanelPrefs(session);
  const historyView = useHistoryView({ session, imageId: image.id, projectId: project.id, collapsed: panels.collapsed, expandSidebar: panels.expandSidebar });
  const { state: preview, previewing, previewShown } = historyView;
  const { loading, live, documentIn, showPeers } = useOpenImage({ session, image, readOnly, reopenToken: preview.reopenToken });
  const { load, ready } = loading;
  const nav = useSequence({ session, image, sequence, orgId, projectId: project.id, ready: load.status === 'ready', onNavigate });
  const tools = useToolsAndClasses({ session, project, imageFilename: image.filename, readOnly, view, documentVersion });
  const { tool, picker, classColor, colorsKey } = tools;
  const stage = useImageStage({ image, orgId, projectId: project.id, saver: session.saver, deniedReason: access.stageDeniedReason });
  useLoadShortcuts();
  const narrow = useMediaQuery(NARROW_SCREEN);
  const sheet = useSheet();
  useEditorKeys({ session, imageId: image.id, chooseTool: tools.chooseTool, goPrevious: nav.goPrevious, goNext: nav.goNext, toggleHistory: historyView.toggleHistory, classByNumber: tools.classByNumber, cycleClass: tools.cycleClass, openStage: stage.openPicker });
  const removeAll = useRemoveAll(session);
  // The review loop (issue 29): Submit / Accept / Reject in the top bar, the issues panel and pins.
  const workflow = useEditorWorkflow({ editor, image, status: stage.status, orgId, projectId: project.id, saver: session.saver, link: session.link, previewing, documentIn, onNavigate, onBack });

  const classes = project.classes;
  const previewEditor = history.previewEditor;
  const imageSize = editor.getImageSize();
  const imageArea = imageSize ? imageSize.width * imageSize.height : null;
  // While an earlier version is on the canvas, the zoom, the settings and the list work on it.
  const shownEditor = previewShown ? previewEditor : editor;
  const stageReady = ready || loading.keepPrevious || previewShown;
  const autoShown = tool === 'auto' && ready && !previewing;

  return (
    <div className={styles.page}>
      <EditorTopBar image={image} projectName={project.name} index={nav.index} count={sequence?.length} hasPrevious={!!nav.previous} hasNext={!!nav.next} onBack={onBack} goPrevious={nav.goPrevious} goNext={nav.goNext} viewOnlyReason={viewOnlyReason} saveStatus={shownStatus} stage={stage} peers={showPeers ? <PeerAvatars peers={live.peers} selfId={live.userId} /> : null} workflow={guarded('The review actions', workflow.actions, image.id, 'inline')} />

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
            onPointerImage={documentIn ? live.sendCursor : undefined}
          />
          {showPeers && documentIn && !previewShown ? guarded("The other people's cursors", <PeerOverlay editor={editor} peers={live.peers} presence={live.presence} documentVersion={documentVersion} now={live.now} />, image.id, 'inline') : null}
          {previewShown ? null : guarded('The issues', workflow.layer, image.id, 'inline')}
          {previewShown ? <VersionCanvas editor={previewEditor} drawn={preview.drawn} version={preview.shown} filename={image.filename} classColor={classColor} colorsKey={colorsKey} imageSource={loading.imageSource} onImageReady={(err) => history.drawn(err)} /> : null}
          {preview.preview ? (
            <VersionBanner state={preview.preview} restoreDeniedReason={viewOnlyReason} onRestore={() => history.openRestore(readOnly)} onBack={() => history.leave()} onRetry={() => history.show(preview.preview!.entry)} />
          ) : null}
          {picker.show && ready && !readOnly && !previewing ? (
            <div className={styles.pickerDock}>
              {guarded('The class picker', <ClassPicker classes={classes} type={picker.type} listed={picker.listed} value={picker.value} placeholder={picker.placeholder} onChoose={picker.onChoose} onAddClass={picker.onAddClass} onManageClasses={onManageClasses} />, undefined, 'inline')}
            </div>
          ) : null}
          {loading.recovered && !previewing ? <RecoveredNotice changes={loading.recovered.changes} onDiscard={() => void loading.discardRecovered()} onKeep={loading.keepRecovered} /> : null}
          {autoShown ? guarded('Auto-Annotate', <AutoAnnotateBar state={autoState} prompt={promptInfo(view)} imageArea={imageArea} onComplete={() => void editor.auto.accept()} onClear={() => editor.auto.clear()} onOutput={(o) => auto.setOutput(o)} classPicker={readOnly ? null : <ClassPicker classes={classes} type="mask" value={view.activeClass} placeholder="Choose a class" onChoose={picker.onChoose} onAddClass={picker.onAddClass} onManageClasses={onManageClasses} attention={picker.attention} label="Mask class" />} />, undefined, 'inline') : null}
          {ready && !previewShown ? guarded('The predictions', <PredictionsBar editor={editor} minScore={panels.minScore} onMinScore={panels.changeMinScore} readOnlyReason={viewOnlyReason} />, image.id, 'inline') : null}
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
          collapsed={narrow ? !sheet.open : panels.collapsed}
          onToggleCollapsed={narrow ? sheet.toggle : panels.toggleSidebar}
          sheet={narrow}
          canCopyPrevious={Boolean(nav.previous && nav.previous.annotation_count > 0) && ready && !previewing}
          copyingPrevious={copyingPrevious}
          onCopyPrevious={() => nav.previous && void session.copyPrevious(nav.previous, image.id)}
          onRemoveAll={removeAll.ask}
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

      {removeAll.dialog}
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

/** Below 768 px the sidebar is a sheet (issue 37): open or not, and focus back on its opener when it closes. */
function useSheet() {
  const [open, setOpen] = useState(false);
  const toggle = useCallback(() => {
    setOpen((was) => {
      if (was) requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-sheet-opener]')?.focus());
      return !was;
    });
  }, []);
  return { open, toggle };
}

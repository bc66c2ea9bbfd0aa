// The merge view's working part (issue 36 §3): the annotators' layers side by side with the merged
// preview, the list of shape groups with the reviewer's choice for each (consensus, one
// annotator's shape, or leave it out), and Merge, which makes the preview the image's annotations
// (POST /images/{id}/merge) and opens the image in the editor.
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { GitMerge } from 'lucide-react';
import type { StoredAnnotation } from '../../../contract/annotations';
import type { Draft } from '../../../contract/consensus';
import type { Image } from '../../../contract/images';
import { consensusApi } from '../../api/consensus';
import { serverMessage } from '../../api/client';
import { Button } from '../../components/Button';
import { Banner } from '../../components/Banner';
import { formatCount } from '../../lib/format';
import { imagePath } from '../../lib/links';
import { toast } from '../../stores/toast';
import { defaultChoices, groupShapes, mergedAnnotations, submittedText, type GroupChoice, type Layer, type PointNames, type ShapeGroup } from './consensus';
import { LayerPanel, type PanelShape } from './LayerPanel';
import styles from './MergePage.module.css';

const choiceValue = (c: GroupChoice) => String(c);
const parseChoice = (v: string): GroupChoice => (v === 'consensus' || v === 'drop' ? v : Number(v));

function GroupRow({ group, number, layers, choice, onChoose, onFocus }: { group: ShapeGroup; number: number; layers: readonly Layer[]; choice: GroupChoice; onChoose(c: GroupChoice): void; onFocus(on: boolean): void }) {
  const options: [GroupChoice, string][] = [
    ['consensus', group.support > 1 ? (group.members.every((m) => !m || !m.polygon) ? 'Consensus (mean box)' : 'Consensus (closest shape)') : 'Consensus (its only shape)'],
    ...group.members.flatMap((m, i): [GroupChoice, string][] => (m ? [[i, `${layers[i]!.user.name}'s`]] : [])),
    ['drop', 'Leave out'],
  ];
  return (
    <li className={styles.group} data-testid="merge-group" onMouseEnter={() => onFocus(true)} onMouseLeave={() => onFocus(false)} onFocus={() => onFocus(true)} onBlur={() => onFocus(false)}>
      <fieldset className={styles.groupFields}>
        <legend className={styles.groupLegend}>
          <span className={styles.groupNumber} aria-hidden="true">
            {number}
          </span>
          <span className="visually-hidden">{`Shape ${number}: `}</span>
          <span className={styles.groupClass}>{group.className}</span>
          <span className={`${styles.groupSupport} tabular`} data-majority={group.majority || undefined}>
            {`drawn by ${group.support} of ${layers.length}`}
          </span>
        </legend>
        <div className={styles.groupChoices}>
          {options.map(([value, label]) => (
            <label key={choiceValue(value)} className={styles.groupChoice}>
              <input type="radio" name={`choice-${group.key}`} value={choiceValue(value)} checked={choice === value} onChange={(e) => onChoose(parseChoice(e.target.value))} />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
    </li>
  );
}

// Long because it is the one screen of the merge: the layers, the preview, the choices and the
// Merge call share the groups and the choices.
export function MergeWorkspace(props: {
  projectId: string;
  image: Image;
  imageUrl: string | null;
  drafts: readonly Draft[];
  colors: ReadonlyMap<string, string>;
  /** Skeleton classes' point names, for OKS's sigmas when keypoints are grouped. */
  pointNames: PointNames;
  waitingFor: number;
}) {
  const { projectId, image, imageUrl, drafts, colors, pointNames, waitingFor } = props;
  const navigate = useNavigate();
  const layers = useMemo<Layer[]>(() => drafts.map((d) => ({ user: d.user, annotations: d.annotations as StoredAnnotation[] })), [drafts]);
  const groups = useMemo(() => groupShapes(layers, pointNames), [layers, pointNames]);
  const [choices, setChoices] = useState(() => defaultChoices(groups));
  const [active, setActive] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [merged, setMerged] = useState(false);
  const result = useMemo(() => mergedAnnotations(groups, choices), [groups, choices]);
  const numberOf = useMemo(() => new Map(groups.map((g, i) => [g.key, i + 1])), [groups]);
  const width = image.image_width ?? 1000;
  const height = image.image_height ?? 750;

  const layerShapes = (layer: number): PanelShape[] =>
    groups.flatMap((g) => {
      const m = g.members[layer];
      return m ? [{ shape: m, number: numberOf.get(g.key)!, active: active === g.key }] : [];
    });
  const resultShapes: PanelShape[] = groups.flatMap((g) => {
    const shape = mergedAnnotations([g], choices)[0];
    return shape ? [{ shape, number: numberOf.get(g.key)!, active: active === g.key }] : [];
  });

  const merge = async () => {
    if (busy || waitingFor > 0) return;
    setBusy(true);
    setError(null);
    try {
      await consensusApi.merge(image.id, result);
      setMerged(true);
      toast(`Merged ${formatCount(result.length, 'shape')} into ${image.filename}`, 'success', 4000);
      void navigate(imagePath(projectId, image.id));
    } catch (err) {
      setError(serverMessage(err, "Couldn't merge the drafts. Please try again."));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={styles.workspace}>
      <div className={styles.panels} data-count={layers.length + 1}>
        {drafts.map((d, i) => (
          <LayerPanel
            key={d.user.id}
            title={d.user.name}
            detail={`${submittedText(d.submitted_at)} · ${formatCount(d.annotations.length, 'shape')}`}
            label={`${d.user.name}'s layer`}
            shapes={layerShapes(i)}
            imageUrl={imageUrl}
            width={width}
            height={height}
            colors={colors}
            testId="merge-layer"
            tone={d.submitted_at ? 'layer' : 'pending'}
          />
        ))}
        <LayerPanel title="Merged result" detail={formatCount(result.length, 'shape')} label="Merged result" shapes={resultShapes} imageUrl={imageUrl} width={width} height={height} colors={colors} testId="merge-result" tone="result" />
      </div>
      <aside className={styles.side} aria-label="Merge choices">
        <h2 className={styles.sideTitle}>Shapes</h2>
        <p className={styles.sideHint}>Shapes of one class that overlap (IoU 50% or more; points: OKS 50% or more) are one shape. Most annotators agree: the consensus is kept; otherwise it is left out unless you keep someone's.</p>
        {groups.length === 0 ? (
          <p className={styles.sideEmpty}>No annotator drew anything on this image. Merging leaves it without annotations.</p>
        ) : (
          <ol className={styles.groups}>
            {groups.map((g) => (
              <GroupRow
                key={g.key}
                group={g}
                number={numberOf.get(g.key)!}
                layers={layers}
                choice={choices.get(g.key) ?? 'drop'}
                onChoose={(c) => setChoices((prev) => new Map(prev).set(g.key, c))}
                onFocus={(on) => setActive((a) => (on ? g.key : a === g.key ? null : a))}
              />
            ))}
          </ol>
        )}
        {error ? (
          <Banner tone="danger" title="The merge failed">
            <span role="alert">{error}</span>
          </Banner>
        ) : null}
        {merged ? (
          <p className={styles.sideHint} role="status">
            Merged. Opening the editor...
          </p>
        ) : null}
        <div className={styles.mergeBar}>
          <span className={`${styles.mergeCount} tabular`}>{`${formatCount(result.length, 'shape')} ${result.length === 1 ? 'becomes' : 'become'} the image's annotations`}</span>
          <Button variant="primary" icon={<GitMerge />} busy={busy} busyLabel="Merging..." disabled={waitingFor > 0 || merged} disabledReason={waitingFor > 0 ? `Waiting for ${waitingFor} more to submit` : undefined} onClick={() => void merge()}>
            Merge
          </Button>
        </div>
      </aside>
    </div>
  );
}

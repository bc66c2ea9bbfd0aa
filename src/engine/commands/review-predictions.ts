// Reviewing a model's predictions (issue 34): accepting keeps the shape as the annotator's
// (`source.pending` false, model and score kept), rejecting deletes it. Shapes that are not
// pending predictions are left alone. Any other command that changes a pending prediction
// accepts it in the same step (doc-changes.ts, acceptEdited).
import { isPending, withPending } from '../model/prediction';
import { defineCommand } from './types';

const predictionLabel = (verb: string, n: number) => `${verb} ${n} prediction${n === 1 ? '' : 's'}`;

export const acceptPredictions = defineCommand<{ ids: readonly string[] }>({
  name: 'accept-predictions',
  label: ({ ids }) => predictionLabel('Accept', ids.length),
  run(tx, { ids }) {
    for (const id of ids) {
      const a = tx.get(id);
      if (a && isPending(a)) tx.set(withPending(a, false));
    }
  },
});

export const rejectPredictions = defineCommand<{ ids: readonly string[] }>({
  name: 'reject-predictions',
  label: ({ ids }) => predictionLabel('Reject', ids.length),
  run(tx, { ids }) {
    for (const id of ids) if (isPending(tx.get(id))) tx.remove(id);
  },
});

// An error boundary for one part of a screen (issue 30): a render error in the part it wraps shows
// a short message with Try again in its place, and the rest of the screen keeps working. Without
// one, React unmounts the whole tree on a render error: selecting a shape whose attribute value
// the panel could not show blanked the editor, work in progress included.
//
// `resetKey`: when it changes (the selection, the image) the part is rendered again by itself, so
// moving on from what failed recovers without a click. React logs each error it catches.
import { Component, type ReactNode } from 'react';
import { RotateCcw, TriangleExclamationPoint } from 'lucide-react';
import { Button } from './Button';
import styles from './ErrorBoundary.module.css';

export interface ErrorBoundaryProps {
  /** What the part is, for the message: "The attributes panel" -> "The attributes panel could not be shown". */
  what: string;
  children: ReactNode;
  /** The part is rendered again when this changes. */
  resetKey?: unknown;
  /** A sentence after "Something in it failed; the rest keeps working." (the editor: that the work is still saved). */
  detail?: string;
  /** 'panel' (default) fills the part's place; 'inline' is one compact line for small parts. */
  layout?: 'panel' | 'inline';
}

interface State {
  failed: boolean;
  resetKey: unknown;
}

export class ErrorBoundary extends Component<ErrorBoundaryProps, State> {
  state: State = { failed: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: State): Partial<State> | null {
    if (Object.is(props.resetKey, state.resetKey)) return null;
    return { failed: false, resetKey: props.resetKey };
  }

  private readonly retry = () => this.setState({ failed: false });

  render() {
    if (!this.state.failed) return this.props.children;
    const { what, detail, layout = 'panel' } = this.props;
    return (
      <div className={styles.boundary} data-layout={layout} role="alert" data-testid="error-boundary">
        <TriangleExclamationPoint aria-hidden="true" className={styles.icon} />
        <div className={styles.text}>
          <p className={styles.title}>{what} could not be shown</p>
          {layout === 'panel' ? <p className={styles.body}>{`Something in it failed; the rest keeps working.${detail ? ` ${detail}` : ''}`}</p> : null}
        </div>
        <Button size="sm" variant="secondary" icon={<RotateCcw />} onClick={this.retry}>
          Try again
        </Button>
      </div>
    );
  }
}

// Pages whose code is fetched the first time they are shown (issue 16): the editor route pulls in
// the engine, regl, the render worker's client and the wasm kernels, and the project and settings
// pages their own tools, none of which the sign-in and projects pages need. While a page's chunk
// loads it shows a loading state where the page will be (the editor: the full-page one it shows
// itself while its image loads, so nothing moves when it takes over; pages in the app shell: the
// main area, the sidebar stays). If the chunk cannot be fetched (offline, or a new deployment
// replaced it) an error with Try again, which fetches it anew. Errors thrown by a page once loaded
// are not caught here.
import { Component, Suspense, lazy, useState, type ComponentType, type ReactNode } from 'react';
import { RefreshCw } from 'lucide-react';
import { Button } from './components/Button';
import { EmptyState } from './components/EmptyState';
import { FullPageLoading, FullPageMessage } from './components/FullPage';
import { Spinner } from './components/Spinner';
import styles from './lazyPage.module.css';

/** A page's code that did not arrive. */
class ChunkLoadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ChunkLoadError';
  }
}

export interface LazyPageOptions {
  /** 'full': the page fills the window (the editor); 'main': it sits in the app shell's main area. */
  layout: 'full' | 'main';
  loading: string;
  /** Title of the error shown when the page's code does not arrive. */
  failed: string;
}

export interface LazyPage<P extends object> {
  (props: P): ReactNode;
  /** Starts fetching the page's code (an idle moment before it is likely to be opened); never rejects. */
  preload(): void;
}

/** `load` resolves to the page component: `() => import('./pages/x/XPage').then((m) => m.XPage)`. */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>, options: LazyPageOptions): LazyPage<P> {
  let pending: Promise<ComponentType<P>> | null = null;
  // One fetch at a time, shared by preload and render; a failed one is forgotten so the next try fetches again.
  const fetchPage = () =>
    (pending ??= load().catch((err: unknown) => {
      pending = null;
      throw new ChunkLoadError(err);
    }));
  // React.lazy keeps a rejection for good: Try again makes a new one.
  const makeLazy = () => lazy(async () => ({ default: await fetchPage() }));
  let Loaded = makeLazy();

  function Page(props: P) {
    const [, setAttempt] = useState(0);
    const retry = () => {
      Loaded = makeLazy();
      setAttempt((n) => n + 1);
    };
    return (
      <ChunkBoundary options={options} onRetry={retry}>
        <Suspense fallback={<Loading options={options} />}>
          <Loaded {...props} />
        </Suspense>
      </ChunkBoundary>
    );
  }
  Page.preload = () => void fetchPage().catch(() => undefined);
  return Page;
}

function Loading({ options }: { options: LazyPageOptions }) {
  if (options.layout === 'full') return <FullPageLoading text={options.loading} />;
  return (
    <div className={styles.pane} aria-busy="true">
      <span className={styles.loading} role="status">
        <Spinner size="sm" />
        {options.loading}
      </span>
    </div>
  );
}

class ChunkBoundary extends Component<{ options: LazyPageOptions; onRetry(): void; children: ReactNode }, { error: unknown }> {
  state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    // Not a missing chunk: the boundaries above (if any) deal with it, as before the page was lazy.
    if (!(error instanceof ChunkLoadError)) throw error;
    const message = (
      <EmptyState
        bordered={false}
        tone="danger"
        icon={<RefreshCw />}
        title={this.props.options.failed}
        description="Check your connection and try again."
        role="alert"
        action={
          <Button
            variant="primary"
            onClick={() => {
              this.setState({ error: null });
              this.props.onRetry();
            }}
          >
            Try again
          </Button>
        }
      />
    );
    return this.props.options.layout === 'full' ? <FullPageMessage>{message}</FullPageMessage> : <div className={styles.pane}>{message}</div>;
  }
}

import { useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RefreshCw } from 'lucide-react';
import { TooltipProvider } from './components/Tooltip';
import { Toaster } from './components/Toaster';
import { FullPageLoading, FullPageMessage } from './components/FullPage';
import { EmptyState } from './components/EmptyState';
import { Button } from './components/Button';
import { useSession } from './stores/session';
import { AppShell } from './layout/AppShell';
import { NotFoundPage } from './layout/NotFoundPage';
import { LegacyImageRedirect, LegacyProjectRedirect, ProjectIndexRedirect } from './pages/projects/LegacyRedirects';
import { AuthPage } from './pages/auth/AuthPage';
import { OnboardingPage } from './pages/onboarding/OnboardingPage';
import { ProjectsPage } from './pages/projects/ProjectsPage';
import { ModelsPage } from './pages/models/ModelsPage';
import { InvitePage } from './pages/invite/InvitePage';
import { isAuthFailure } from './api/client';
import { AnnotatePage, MergePage, ProjectPage, SettingsPage } from './lazyRoutes';
import { useRouteFocus } from './lib/useRouteFocus';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => !isAuthFailure(err) && count < 1,
    },
  },
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <TooltipProvider>
        <BrowserRouter>
          <Gate />
        </BrowserRouter>
        <Toaster />
      </TooltipProvider>
    </QueryClientProvider>
  );
}

/** Decides between loading, authentication, onboarding and the app (spec section 2). */
function Gate() {
  const authStatus = useSession((s) => s.authStatus);
  const bootError = useSession((s) => s.bootError);
  const holdAuthScreen = useSession((s) => s.holdAuthScreen);
  const profileStatus = useSession((s) => s.profileStatus);
  const profileError = useSession((s) => s.profileError);
  const needsOnboarding = useSession((s) => s.needsOnboarding);
  const userId = useSession((s) => s.user?.id);
  const init = useSession((s) => s.init);
  const loadProfile = useSession((s) => s.loadProfile);
  const signOut = useSession((s) => s.signOut);
  const { pathname } = useLocation();
  useRouteFocus();

  useEffect(() => {
    void init();
  }, [init]);

  // A different user (or none) must never see the previous user's cached data.
  useEffect(() => {
    queryClient.clear();
  }, [userId]);

  if (bootError) {
    return (
      <FullPageMessage>
        <EmptyState
          bordered={false}
          tone="danger"
          icon={<RefreshCw />}
          title="Can't reach Vellum"
          description={bootError}
          role="alert"
          action={
            <Button variant="primary" onClick={() => void init()}>
              Try again
            </Button>
          }
        />
      </FullPageMessage>
    );
  }
  if (authStatus === 'loading') return <FullPageLoading />;
  if (authStatus === 'signedOut' || holdAuthScreen) return <AuthPage />;
  if (profileStatus === 'error') {
    return (
      <FullPageMessage>
        <EmptyState
          bordered={false}
          tone="danger"
          icon={<RefreshCw />}
          title="Your account didn't load"
          description={profileError}
          role="alert"
          action={
            <>
              <Button variant="secondary" onClick={() => void signOut()}>
                Sign Out
              </Button>
              <Button variant="primary" onClick={() => void loadProfile()}>
                Try again
              </Button>
            </>
          }
        />
      </FullPageMessage>
    );
  }
  if (profileStatus !== 'ready') return <FullPageLoading />;
  // An invited person joins through the link, without creating an organization first.
  if (needsOnboarding && !pathname.startsWith('/invite/')) return <OnboardingPage />;
  // Every view has its URL (issue 29, src/app/lib/links.ts). A link opened signed out shows the
  // authentication page at that same URL, so signing in (or up, then onboarding) lands on it.
  return (
    <Routes>
      <Route path="invite/:token" element={<InvitePage />} />
      <Route path="projects/:projectId/images/:imageId" element={<AnnotatePage />} />
      <Route path="project/annotate/:imageName" element={<LegacyImageRedirect />} />
      <Route element={<AppShell />}>
        <Route index element={<Navigate to="/select" replace />} />
        <Route path="select" element={<ProjectsPage />} />
        <Route path="projects/:projectId" element={<ProjectIndexRedirect />} />
        <Route path="projects/:projectId/:tab" element={<ProjectPage />} />
        <Route path="projects/:projectId/images/:imageId/merge" element={<MergePage />} />
        <Route path="project" element={<LegacyProjectRedirect />} />
        <Route path="models" element={<ModelsPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

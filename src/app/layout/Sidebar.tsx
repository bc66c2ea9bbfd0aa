import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { NavLink, useLocation, useNavigate } from 'react-router-dom';
import { BrainCircuit, Check, ChevronsUpDown, FolderKanban, LogOut, PanelLeftClose, PanelLeftOpen, Settings } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { Avatar } from '../components/Avatar';
import { IconButton } from '../components/Button';
import { Logo } from '../components/Logo';
import { Tooltip } from '../components/Tooltip';
import { formatTier } from '../lib/format';
import { NARROW_SCREEN, useMediaQuery } from '../lib/useMediaQuery';
import { useSession } from '../stores/session';
import { useUi } from '../stores/ui';
import { api } from '../api/client';
import { toast } from '../stores/toast';
import styles from './Sidebar.module.css';

interface NavEntry {
  to: string;
  label: string;
  icon: ReactNode;
  match: (path: string) => boolean;
}

const NAV: NavEntry[] = [
  { to: '/select', label: 'Projects', icon: <FolderKanban />, match: (p) => p === '/select' || p.startsWith('/project') },
  { to: '/models', label: 'Models', icon: <BrainCircuit />, match: (p) => p.startsWith('/models') },
  { to: '/settings', label: 'Settings', icon: <Settings />, match: (p) => p.startsWith('/settings') },
];

export function Sidebar() {
  const userCollapsed = useUi((s) => s.sidebarCollapsed);
  const toggleUserCollapsed = useUi((s) => s.toggleSidebar);
  const { pathname } = useLocation();
  // On a narrow screen (a phone, or 200% zoom on a small window) the sidebar keeps to its icons,
  // and expanding it opens a drawer over the page that closes on the next navigation; the
  // person's wide-screen choice is left as it was.
  const narrow = useMediaQuery(NARROW_SCREEN);
  const [drawerOpen, setDrawerOpen] = useState(false);
  useEffect(() => setDrawerOpen(false), [pathname, narrow]);
  const collapsed = narrow ? !drawerOpen : userCollapsed;
  const toggle = narrow ? () => setDrawerOpen((open) => !open) : toggleUserCollapsed;
  const profile = useSession((s) => s.profile);
  const user = useSession((s) => s.user);
  const signOut = useSession((s) => s.signOut);
  const name = profile?.full_name || (user?.user_metadata?.full_name as string | undefined) || profile?.email || user?.email || '';
  const email = profile?.email ?? user?.email ?? '';

  return (
    <nav className={[styles.sidebar, collapsed && styles.collapsed, narrow && drawerOpen && styles.drawer].filter(Boolean).join(' ')} aria-label="Main">
      <div className={styles.top}>
        <NavLink to="/select" className={styles.brand} aria-label="Vellum home">
          <Logo size="sm" showWord={!collapsed} />
        </NavLink>
        <IconButton
          label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          icon={collapsed ? <PanelLeftOpen /> : <PanelLeftClose />}
          onClick={toggle}
          tooltipSide="right"
          aria-expanded={!collapsed}
        />
      </div>

      <OrganizationSwitcher collapsed={collapsed} />

      <div className={styles.nav}>
        <span className={styles.navLabel} aria-hidden={collapsed}>
          Workspace
        </span>
        {NAV.map((item) => {
          const active = item.match(pathname);
          const link = (
            <NavLink
              key={item.to}
              to={item.to}
              className={[styles.navItem, active && styles.active].filter(Boolean).join(' ')}
              aria-current={active ? 'page' : undefined}
              aria-label={collapsed ? item.label : undefined}
            >
              <span aria-hidden="true">{item.icon}</span>
              {collapsed ? null : <span>{item.label}</span>}
            </NavLink>
          );
          return collapsed ? (
            <Tooltip key={item.to} content={item.label} side="right">
              {link}
            </Tooltip>
          ) : (
            link
          );
        })}
      </div>

      <div className={styles.spacer} />

      <div className={styles.footer}>
        <div className={styles.user} title={collapsed ? `${name}\n${email}` : undefined}>
          <Avatar name={name || email} />
          {collapsed ? null : (
            <div className={styles.userText}>
              <span className={styles.userName}>{name || email}</span>
              {name && name !== email ? <span className={styles.userEmail}>{email}</span> : null}
            </div>
          )}
        </div>
        <Tooltip content="Sign Out" side="right" disabled={!collapsed}>
          <button type="button" className={styles.navItem} onClick={() => void signOut()} aria-label={collapsed ? 'Sign Out' : undefined}>
            <LogOut aria-hidden="true" />
            {collapsed ? null : <span>Sign Out</span>}
          </button>
        </Tooltip>
      </div>
    </nav>
  );
}

function OrganizationSwitcher({ collapsed }: { collapsed: boolean }) {
  const organizations = useSession((s) => s.organizations);
  const current = useSession((s) => s.currentOrganization);
  const setCurrent = useSession((s) => s.setCurrentOrganization);
  const applyProfile = useSession((s) => s.applyProfile);
  const navigate = useNavigate();
  const { pathname } = useLocation();
  if (!current) return null;

  const summary = (
    <>
      <Avatar name={current.name} square />
      {collapsed ? null : (
        <span className={styles.orgText}>
          <span className={styles.orgName}>{current.name}</span>
          <span className={styles.orgMeta}>{formatTier(current.subscription_tier)} plan</span>
        </span>
      )}
    </>
  );

  if (organizations.length < 2) {
    return (
      <Tooltip content={`${current.name} · ${formatTier(current.subscription_tier)} plan`} side="right" disabled={!collapsed}>
        {/* A named group (issue 37: an aria-label on a plain div names nothing to a screen reader). */}
        <div className={styles.org} role="group" tabIndex={collapsed ? 0 : undefined} aria-label={`Organization: ${current.name}`}>
          {summary}
        </div>
      </Tooltip>
    );
  }

  const choose = (id: string) => {
    if (id === current.id) return;
    // A project's page belongs to its organization (opening it switches back): leave it first.
    if (pathname.startsWith('/projects/')) navigate('/select');
    setCurrent(id);
    // Remember the choice as the default organization; the switch itself already happened.
    api.updateMe({ default_organization_id: id }).then(
      (res) => applyProfile(res.profile, id),
      () => toast('Failed to update profile', 'danger'),
    );
  };

  return (
    <DropdownMenu.Root>
      <Tooltip content={`Switch organization (${current.name})`} side="right" disabled={!collapsed}>
        <DropdownMenu.Trigger asChild>
          <button type="button" className={styles.org} aria-label={`Organization: ${current.name}. Switch organization`}>
            {summary}
            {collapsed ? null : <ChevronsUpDown className={styles.chev} aria-hidden="true" />}
          </button>
        </DropdownMenu.Trigger>
      </Tooltip>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className={styles.menu} side={collapsed ? 'right' : 'bottom'} align="start" sideOffset={6}>
          <DropdownMenu.Label className={styles.menuLabel}>Organizations</DropdownMenu.Label>
          {organizations.map((org) => (
            <DropdownMenu.Item key={org.id} className={styles.menuItem} onSelect={() => choose(org.id)}>
              <Avatar name={org.name} square />
              <span className={styles.orgText}>
                <span className={styles.orgName}>{org.name}</span>
                <span className={styles.orgMeta}>
                  {formatTier(org.subscription_tier)} plan · {org.user_role}
                </span>
              </span>
              {org.id === current.id ? <Check className={styles.check} aria-label="Current" /> : null}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

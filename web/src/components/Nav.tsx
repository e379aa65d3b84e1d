import { signOut } from '../session.ts';
import { useEffect, useRef } from 'preact/hooks';
import type { Label } from '../api.ts';
import { savedSearches } from '../saved-searches.ts';
import { activeProjects, counts, menuOpen, route, sortedContexts } from '../state.ts';
import { BOX_VIEWS, hashOf, type Route } from '../views.ts';
import { NO_COLOR } from './LabelsView.tsx';

function isCurrent(target: Route, current: Route): boolean {
  return hashOf(target) === hashOf(current);
}

function NavLink({
  target,
  label,
  count,
  color,
}: {
  readonly target: Route;
  readonly label: string;
  readonly count?: number | undefined;
  /** A project's color, as a dot before its name. */
  readonly color?: string | undefined;
}) {
  const current = isCurrent(target, route.value);
  return (
    <li>
      <a href={hashOf(target)} aria-current={current ? 'page' : undefined} class={current ? 'current' : undefined}>
        {color !== undefined && <span class="dot" style={{ background: color }} aria-hidden="true" />}
        <span class="label">{label}</span>
        {/* The space keeps the name apart from its count for screen readers: "Inbox 3". */}
        {count !== undefined && <span class="count"> {count}</span>}
      </a>
    </li>
  );
}

function colorOf(project: Label): string {
  return project.color ?? NO_COLOR;
}

/** The boxes with their open counts, the projects and contexts, settings and sign-out. */
export function Nav() {
  const open = counts.value;
  const element = useRef<HTMLElement>(null);
  const unfolded = menuOpen.value;
  // Unfolded on a phone, the menu takes the focus, on the current view's link.
  useEffect(() => {
    if (unfolded) element.current?.querySelector<HTMLElement>('a[aria-current="page"], a')?.focus();
  }, [unfolded]);
  return (
    <nav aria-label="Main" id="main-nav" class={unfolded ? 'open' : undefined} ref={element}>
      <div class="brand" aria-hidden="true">
        <img src="/icon.svg" alt="" />
        Task Service
      </div>
      <ul>
        {BOX_VIEWS.map(({ view, name, box }) => (
          <NavLink
            key={view}
            target={{ kind: 'box', view }}
            label={name}
            count={box === null ? undefined : open[box]}
          />
        ))}
      </ul>
      <h2>
        Projects
        <a
          class="manage"
          href={hashOf({ kind: 'labels' })}
          aria-current={route.value.kind === 'labels' ? 'page' : undefined}
        >
          Manage<span class="visually-hidden"> projects and contexts</span>
        </a>
      </h2>
      {activeProjects.value.length > 0 && (
        <ul>
          {activeProjects.value.map((project) => (
            <NavLink
              key={project.id}
              target={{ kind: 'project', id: project.id }}
              label={project.name}
              color={colorOf(project)}
            />
          ))}
        </ul>
      )}
      {sortedContexts.value.length > 0 && (
        <>
          <h2>Contexts</h2>
          <ul>
            {sortedContexts.value.map((context) => (
              <NavLink key={context.id} target={{ kind: 'context', id: context.id }} label={context.name} />
            ))}
          </ul>
        </>
      )}
      {savedSearches.value.length > 0 && (
        <>
          <h2>Searches</h2>
          <ul>
            {savedSearches.value.map((saved) => (
              <NavLink key={saved.name} target={{ kind: 'search', query: saved.query }} label={saved.name} />
            ))}
          </ul>
        </>
      )}
      <ul class="account">
        <NavLink target={{ kind: 'settings' }} label="Settings" />
        <li>
          <a
            href="#/sign-out"
            onClick={(event) => {
              event.preventDefault();
              void signOut();
            }}
          >
            Sign out
          </a>
        </li>
      </ul>
    </nav>
  );
}

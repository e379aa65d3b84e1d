import { signOut } from '../session.ts';
import { useEffect, useRef } from 'preact/hooks';
import { counts, menuOpen, route, sortedContexts, sortedProjects } from '../state.ts';
import { BOX_VIEWS, hashOf, type Route } from '../views.ts';

function isCurrent(target: Route, current: Route): boolean {
  return hashOf(target) === hashOf(current);
}

function NavLink({
  target,
  label,
  count,
}: {
  readonly target: Route;
  readonly label: string;
  readonly count?: number | undefined;
}) {
  const current = isCurrent(target, route.value);
  return (
    <li>
      <a href={hashOf(target)} aria-current={current ? 'page' : undefined} class={current ? 'current' : undefined}>
        <span class="label">{label}</span>
        {/* The space keeps the name apart from its count for screen readers: "Inbox 3". */}
        {count !== undefined && <span class="count"> {count}</span>}
      </a>
    </li>
  );
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
      {sortedProjects.value.length > 0 && (
        <>
          <h2>Projects</h2>
          <ul>
            {sortedProjects.value.map((project) => (
              <NavLink key={project.id} target={{ kind: 'project', id: project.id }} label={project.name} />
            ))}
          </ul>
        </>
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

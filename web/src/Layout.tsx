/**
 * The frame of every page: a skip link, the header (product name, navigation, the signed-in
 * e-mail and Sign out) and the main landmark. After an in-app navigation focus moves to the main
 * region, so keyboard and screen-reader users start at the new page's content. On a phone the
 * seven links fold behind a "Menu" button (aria-expanded), so the header keeps one row.
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import { call } from "./api";
import { Link, navigate, useLocation } from "./router";
import { useSession } from "./session";
import { handler, useAction } from "./ui";

const NAV = [
  { href: "/episodes", label: "Episodes" },
  { href: "/transcripts", label: "Transcripts" },
  { href: "/keys", label: "Keys" },
  { href: "/billing", label: "Billing" },
  { href: "/brand-kits", label: "Brand kits" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/account", label: "Account" },
];

export function Layout({ signedIn, email, children }: { signedIn: boolean; email?: string; children: ReactNode }) {
  const { path } = useLocation();
  // The episode workspace is wider; decided by the path, not by the page's content, so the page
  // does not widen (and shift) once the episode has loaded.
  const wide = /^\/episodes\/(?!new$)[^/]+$/.test(path);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setOpen(false);
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <div className={wide ? "top-inner is-wide" : "top-inner"}>
          <Link href="/" className="brand">
            clipd
          </Link>
          {signedIn && (
            <button
              type="button"
              className="secondary small menu-button"
              aria-expanded={open}
              aria-controls="main-nav"
              onClick={() => setOpen((o) => !o)}
            >
              Menu
            </button>
          )}
          {signedIn && (
            <nav aria-label="Main" id="main-nav" className={`nav${open ? " nav-open" : ""}`}>
              <ul>
                {NAV.map((n) => (
                  <li key={n.href}>
                    <Link href={n.href} aria-current={path === n.href ? "page" : undefined}>
                      {n.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {!signedIn && (
            // Signed out, the one page open to all is the free transcription page.
            <nav aria-label="Main" className="nav nav-public">
              <ul>
                <li>
                  <Link href="/free" aria-current={path === "/free" ? "page" : undefined}>
                    Free transcription
                  </Link>
                </li>
              </ul>
            </nav>
          )}
          {signedIn && <UserBox email={email} />}
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1} className={wide ? "is-wide" : undefined}>
        {children}
      </main>
    </>
  );
}

function UserBox({ email }: { email?: string }) {
  const { refresh } = useSession();
  const { busy, error, run } = useAction();
  async function signOut() {
    const done = await run(async () => (await call("POST", "/signout", {}), true));
    if (!done) return;
    await refresh().catch(() => {});
    navigate("/signin", { replace: true });
  }
  return (
    <div className="user">
      {email && (
        <span className="user-email" title={email}>
          {email}
        </span>
      )}
      <button type="button" className="secondary small" onClick={handler(signOut)} disabled={busy}>
        Sign out
      </button>
      {error && (
        <span role="alert" className="user-error">
          {error}
        </span>
      )}
    </div>
  );
}

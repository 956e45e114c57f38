/**
 * The app shell: reads the session once, then picks the page for the current path. Signed-out
 * visitors reach only the sign-in family of pages; signed-in ones are sent on from those to their
 * keys. Signed-in pages are loaded on demand so the sign-in page stays small.
 */
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from "react";
import { loadSession, messageOf, whenSessionChanges } from "./api";
import { Layout } from "./Layout";
import { HOME, nextPath } from "./next-path";
import { ForgotPassword, ResetPassword, SignIn, SignUp, VerifyEmail } from "./pages/auth";
import { Redirect, useLocation } from "./router";
import { SessionContext } from "./session";
import type { Session } from "./types";

const KeysPage = lazy(() => import("./pages/keys"));
const BillingPage = lazy(() => import("./pages/billing"));
const WebhooksPage = lazy(() => import("./pages/webhooks"));
const BrandKitsPage = lazy(() => import("./pages/brand-kits"));
const AccountPage = lazy(() => import("./pages/account"));
const EpisodesPage = lazy(() => import("./pages/episodes"));
const NewEpisodePage = lazy(() => import("./pages/episodes-new"));
const episodeChunk = () => import("./pages/episode");
const EpisodePage = lazy(episodeChunk);
// An episode's page is fetched while the session loads, not after it: one round trip fewer before
// the workspace paints (Lighthouse's mobile LCP, docs/benchmarks.md).
if (/^\/episodes\/(?!new$)[^/]+$/.test(window.location.pathname)) void episodeChunk();
// The clip editor brings JASSUB (libass in WebAssembly) with it: loaded only on its own route.
const ClipEditorPage = lazy(() => import("./editor/page"));
const TranscriptsPage = lazy(() => import("./pages/transcripts"));
const TranscriptPage = lazy(() => import("./pages/transcripts-item"));
const ResultsPage = lazy(() => import("./pages/results"));
const FreePage = lazy(() => import("./pages/free"));
const FreeKeyPage = lazy(() => import("./pages/free-key"));
const FreeResultPage = lazy(() => import("./pages/free-result"));
const OAuthConsentPage = lazy(() => import("./pages/oauth-consent"));

const SIGNED_OUT: Record<string, () => ReactNode> = {
  "/signin": () => <SignIn />,
  "/signup": () => <SignUp />,
  "/forgot-password": () => <ForgotPassword />,
};
const ANYONE: Record<string, () => ReactNode> = {
  "/reset-password": () => <ResetPassword />,
  "/verify-email": () => <VerifyEmail />,
  "/free": () => <FreePage />,
  "/free/key": () => <FreeKeyPage />,
  // Signed in only, but it sends a signed-out visitor to sign in itself, keeping its query (the OAuth request).
  "/oauth/consent": () => <OAuthConsentPage />,
};
const SIGNED_IN: Record<string, () => ReactNode> = {
  "/keys": () => <KeysPage />,
  "/billing": () => <BillingPage />,
  "/webhooks": () => <WebhooksPage />,
  "/brand-kits": () => <BrandKitsPage />,
  "/account": () => <AccountPage />,
  "/episodes": () => <EpisodesPage />,
  "/episodes/new": () => <NewEpisodePage />,
  "/transcripts": () => <TranscriptsPage />,
};
/** Paths with a part that varies (an id, a token), tried after the fixed ones; the part is decoded. */
const PATTERNS: Array<{ re: RegExp; anyone?: boolean; page: (part: string, part2: string) => ReactNode }> = [
  { re: /^\/episodes\/([^/]+)$/, page: (id) => <EpisodePage key={id} id={id} /> },
  {
    re: /^\/episodes\/([^/]+)\/clips\/(\d+)\/edit$/,
    page: (id, n) => <ClipEditorPage key={`${id}/${n}`} episodeId={id} number={Number(n)} />,
  },
  { re: /^\/transcripts\/([^/]+)$/, page: (id) => <TranscriptPage key={id} id={id} /> },
  { re: /^\/r\/([^/]+)$/, anyone: true, page: (token) => <ResultsPage key={token} token={token} /> },
  { re: /^\/free\/([^/]+)$/, anyone: true, page: (id) => <FreeResultPage key={id} id={id} /> },
];

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { path } = useLocation();

  const refresh = useCallback(async () => {
    const s = await loadSession();
    setSession(s);
    return s;
  }, []);
  useEffect(() => {
    whenSessionChanges(() => void refresh().catch(() => {}));
    refresh().catch((err) => setFailure(messageOf(err)));
  }, [refresh]);

  if (failure)
    return (
      <Layout signedIn={false}>
        <h1>clipd is not answering</h1>
        <p role="alert" className="alert alert-error">
          {failure}
        </p>
        <button type="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      </Layout>
    );
  if (!session) return <div className="booting" aria-busy="true" />;
  return (
    <SessionContext.Provider value={{ session, refresh }}>
      <Layout signedIn={session.signed_in} email={session.account?.email}>
        <Suspense fallback={<p className="loading">Loading…</p>}>{pageFor(path, session.signed_in)}</Suspense>
      </Layout>
    </SessionContext.Provider>
  );
}

function pageFor(path: string, signedIn: boolean): ReactNode {
  const p = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (ANYONE[p]) return ANYONE[p]();
  if (SIGNED_OUT[p])
    // Signed in (just now, or earlier), a sign-in page goes on to where it was asked from.
    return signedIn ? <Redirect to={nextPath(new URLSearchParams(window.location.search))} /> : SIGNED_OUT[p]();
  // A deep link keeps its query through the sign-in (`/episodes?x=1`, an editor's link with its state).
  const back = `/signin?next=${encodeURIComponent(p + window.location.search)}`;
  if (SIGNED_IN[p]) return signedIn ? SIGNED_IN[p]() : <Redirect to={back} />;
  for (const r of PATTERNS) {
    const m = r.re.exec(p);
    if (!m) continue;
    if (!r.anyone && !signedIn) return <Redirect to={back} />;
    return r.page(safeDecode(m[1] ?? ""), safeDecode(m[2] ?? ""));
  }
  // Signed out, the start page says what clipd is above its sign-in form.
  if (p === "/") return signedIn ? <Redirect to={HOME} /> : <SignIn welcome />;
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at {path}.</p>
      <p>
        <a href="/">Go to the start page</a>
      </p>
    </>
  );
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

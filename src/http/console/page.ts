import { ROOT_META, SESSION_SCRIPT } from "./names.ts";

/** A small mark for the browser tab, inline so the page loads nothing it does not need. */
const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f766e"/><path d="M8 22l6-8 4 5 3-4 3 7" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  );

/**
 * Security headers of the page: scripts, styles and connections only from the program serving
 * it (the collector, or an agent's on-site view), never framed (clickjacking), no referrer leaving with tenant names in URLs.
 */
export const PAGE_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/** JSON inside a script element: `<` escaped so no `</script>` can end it early. */
const jsonInHtml = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/**
 * The page's HTML. `prefix` is the way from the page to the server's root ("./" at `/`,
 * "../" at `/console/`), so every link is relative and the console also works behind a proxy
 * that serves the collector (or an agent) under a path of its own. `session` is what GET /console/api/session
 * would answer, written into the page (a JSON script, never executed) to save the page that
 * round trip before its first read.
 */
export function consolePage(prefix: string, script: string, style: string, session: unknown): string {
  const asset = (name: string) => escapeAttr(`${prefix}console/assets/${name}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="${ROOT_META}" content="${escapeAttr(prefix)}">
<title>Outpost</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${asset(style)}">
<script type="module" src="${asset(script)}"></script>
<script type="application/json" id="${SESSION_SCRIPT}">${jsonInHtml(session)}</script>
</head>
<body>
<div id="app"><noscript>The Outpost console needs JavaScript. The HTTP interfaces are under /svc/.</noscript></div>
</body>
</html>
`;
}

#!/usr/bin/env bun
/**
 * The agent's on-site page, built into agent/http/on-site/dist/ for a hand-made `bun build
 * --compile` of the agent (`npm run build:console` runs this after the collector's console;
 * `npm run release` does both itself). Run from source, the agent bundles the page itself at
 * its first request (docs/console.md, "On site").
 */
import { ON_SITE_DIST, writeOnSiteDist } from "./dist.ts";

const r = await writeOnSiteDist();
console.error(`on-site console built in ${r.ms} ms: ${r.files.join(", ")} (${r.bytes} bytes) → ${ON_SITE_DIST}`);

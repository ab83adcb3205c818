#!/usr/bin/env bun
/**
 * `npm run build:console`: the console's built files and their manifest in
 * collector/http/console/dist/, for a hand-made `bun build --compile` of the collector
 * (`npm run release` does this itself). Run from source, the collector bundles the page itself
 * and needs none of this (docs/console.md, "Assets and binaries").
 */
import { CONSOLE_DIST, writeConsoleDist } from "./dist.ts";

const r = await writeConsoleDist();
console.error(`console built in ${r.ms} ms: ${r.files.join(", ")} (${r.bytes} bytes) → ${CONSOLE_DIST}`);

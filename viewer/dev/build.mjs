// Builds the viewer bundle exactly as CMake does, plus the synthetic-document bundle that
// dev/index.html loads (ES modules cannot be loaded from file:// pages).
//   node dev/build.mjs        (from viewer/)
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildAll() {
  const common = { bundle: true, minify: true, format: 'iife', absWorkingDir: root, logLevel: 'warning' };
  await build({ ...common, entryPoints: ['js/main.js'], globalName: 'LidartwinViewer',
    loader: { '.css': 'text' }, outfile: 'dist/viewer.js' });
  await build({ ...common, entryPoints: ['dev/synthetic.js'], globalName: 'LidartwinSynthetic',
    outfile: 'dist/synthetic.js' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildAll();

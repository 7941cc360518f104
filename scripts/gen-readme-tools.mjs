// `npm run docs`: regenerates the tool reference in docs/tools.md from the tool descriptors.
import { readFileSync, writeFileSync } from 'node:fs';

const { everyToolset, renderToolDocs, replaceToolDocs } = await import(
  new URL('../dist/lib.js', import.meta.url).href
);
const file = new URL('../docs/tools.md', import.meta.url);
writeFileSync(file, replaceToolDocs(readFileSync(file, 'utf8'), renderToolDocs(await everyToolset())));
console.log('docs/tools.md updated.');

// `npm run docs`: regenerates the tool reference in README.md from the tool descriptors.
import { readFileSync, writeFileSync } from 'node:fs';

const { everyToolset, renderToolDocs, replaceToolDocs } = await import(
  new URL('../dist/lib.js', import.meta.url).href
);
const file = new URL('../README.md', import.meta.url);
writeFileSync(file, replaceToolDocs(readFileSync(file, 'utf8'), renderToolDocs(await everyToolset())));
console.log('README.md tool reference updated.');

// Drop the attribute descriptions from a minified plotly.js: prose for plotly's schema and
// docs (Plotly.PlotSchema), never read while drawing; about a tenth of the file. Removes
// `description:` only where its value is a plain string or ["…", …].join("…") ending the
// property, so what is left is the same code; the result is checked to parse.
'use strict';
const fs = require('fs');
const vm = require('vm');
const file = process.argv[2];
const source = fs.readFileSync(file, 'utf8');
const STR = '"(?:[^"\\\\\\n]|\\\\.)*"';
const VALUE = `(?:${STR}|\\[(?:${STR},?)*\\]\\.join\\(${STR}\\))`;
let count = 0;
const stripped = source
  .replace(new RegExp(`,description:${VALUE}(?=[,}])`, 'g'), () => { count++; return ''; })
  .replace(new RegExp(`\\{description:${VALUE},`, 'g'), () => { count++; return '{'; })
  .replace(new RegExp(`\\{description:${VALUE}\\}`, 'g'), () => { count++; return '{}'; });
new vm.Script(stripped); // throws if the removal broke the syntax
fs.writeFileSync(file, stripped);
console.log(`${file}: ${count} descriptions dropped, ${source.length} -> ${stripped.length} bytes`);

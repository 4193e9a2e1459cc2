#!/usr/bin/env bash
# Rebuild static/vendor/plotly-lab-<version>.min.js from plotly.js's own npm package (its
# source modules), bundled and minified by esbuild, as plotly.js's custom bundles are, then
# without the attributes' descriptions (strip_descriptions.js: schema prose, a tenth of it)
# and minified again by terser. A rebuild that changes the file must change its name
# (REVISION): the dev server keeps versioned vendor files for a year (school/settings.py).
# Needs node and npm; installs into a throwaway directory, never into the repository.
#   vendor-src/plotly/build.sh [VERSION [REVISION]]
# writes static/vendor/plotly-lab-VERSION-REVISION.min.js: bump REVISION when a change here
# changes the file, and name the new file in templates/base.html and the tests.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:-4.1.1}
revision=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "plotly.js@$version" esbuild@0.28.2 terser@5.51.4
cp "$here/entry.js" .
vendor="$here/../../static/vendor"
out="$vendor/plotly-lab-$version-$revision.min.js"
npx esbuild entry.js --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
  --define:global=window --define:define.amd=false --loader:.css=empty \
  --legal-comments=eof --log-level=warning \
  --banner:js="/* plotly.js (lab: scatter, bar, box, heatmap; fewer components - minified, no descriptions) v$version-$revision | (c) Plotly, Inc. | MIT: plotly-lab-$version.LICENSE.txt */" \
  --outfile="$out"
node "$here/strip_descriptions.js" "$out"
# A second, closer minification (terser's safe defaults, two passes): 7% less over the wire.
npx terser "$out" --compress passes=2 --mangle --ecma 2016 \
  --comments '/plotly\.js \(lab|license|copyright|@preserve/i' --output "$out.tmp"
mv "$out.tmp" "$out"
cp node_modules/plotly.js/LICENSE "$vendor/plotly-lab-$version.LICENSE.txt"
ls -l "$out"

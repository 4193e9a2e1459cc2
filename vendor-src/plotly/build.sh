#!/usr/bin/env bash
# Rebuild static/vendor/plotly-lab-<version>.min.js from plotly.js's own npm package (its
# source modules), bundled and minified by esbuild, as plotly.js's custom bundles are.
# Needs node and npm; installs into a throwaway directory, never into the repository.
#   vendor-src/plotly/build.sh [VERSION]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:-4.1.1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "plotly.js@$version" esbuild@0.28.2
cp "$here/entry.js" .
vendor="$here/../../static/vendor"
out="$vendor/plotly-lab-$version.min.js"
npx esbuild entry.js --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
  --define:global=window --define:define.amd=false --loader:.css=empty \
  --legal-comments=eof --log-level=warning \
  --banner:js="/* plotly.js (lab: scatter, bar, box, heatmap - minified) v$version | (c) Plotly, Inc. | MIT: plotly-lab-$version.LICENSE.txt */" \
  --outfile="$out"
cp node_modules/plotly.js/LICENSE "$vendor/plotly-lab-$version.LICENSE.txt"
ls -l "$out"

#!/usr/bin/env bash
# Copy Workbox's own production builds into static/vendor/workbox-VERSION/, so the service
# worker (ops/offline.py, templates/ops/sw.js) loads them from the site, never a CDN.
# These are the files `workbox copyLibraries` copies: each a classic script that adds its
# module to `self.workbox` (core first; the others read workbox.core, .routing, .strategies).
# Only the five modules the worker uses. Needs npm; works in a throwaway directory.
#   vendor-src/workbox/fetch.sh [VERSION]
# A new VERSION is a new folder: the vendored folders are cached for a year (school/settings.py);
# name it in ops/offline.py (WORKBOX).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:-7.4.1}
out="$here/../../static/vendor/workbox-$version"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cd "$work"
for module in core routing strategies precaching expiration; do
  npm pack --silent "workbox-$module@$version" >/dev/null
  tar xzf "workbox-$module-$version.tgz"
  # Without its sourceMappingURL line: the map is not vendored (the browser would ask for it).
  grep -v '^//# sourceMappingURL=' "package/build/workbox-$module.prod.js" > "$out/workbox-$module.prod.js"
  [ "$module" = core ] && cp package/LICENSE "$out/LICENSE.txt"
  rm -rf package
done
ls -l "$out"

"""Production static files: hashed names, compressed, and ES modules' imports hashed too.

`static/labs/charts.js` is an ES module importing its parts (`./charts/lazy.js`, ...).
Without the import rewriting, a hashed `charts.<hash>.js` would import the unhashed
`./charts/lazy.js`, which is not cached for good and could be newer than its importer.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedModulesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, with `import ... from "./x.js"` pointed at `x.<hash>.js`."""

    support_js_module_import_aggregation = True

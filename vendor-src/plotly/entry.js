// The site's plotly.js: plotly.js's own core (lib/core.js, src/core.js) with the trace
// types and components the charts use, nothing else. Built by build.sh.
// Traces: scatter, bar, box, heatmap (tests/test_page_weight.py fails when a chart draws
// a trace type not here). Components: those of src/core.js less the ones no chart of the
// site uses (3D annotations, update menus, sliders, range sliders and selectors, layout
// images, subplot grids; tests/test_page_weight.py fails when figure code names one).
// Plotly.react, Plotly.register (the toolbar's Marathi locale), the toolbar and hover stay.
'use strict';
var Plotly = exports;
Plotly.version = require('plotly.js/src/version').version;
require('native-promise-only');
require('plotly.js/build/plotcss');

var Registry = require('plotly.js/src/registry');
var register = (Plotly.register = Registry.register);

var plotApi = require('plotly.js/src/plot_api');
Object.keys(plotApi).forEach(function (name) {
    if (name.charAt(0) !== '_') Plotly[name] = plotApi[name];
    register({ moduleType: 'apiMethod', name: name, fn: plotApi[name] });
});

register(require('plotly.js/src/traces/scatter'));
register([
    require('plotly.js/src/components/annotations'),
    require('plotly.js/src/components/selections'),
    require('plotly.js/src/components/shapes'),
    require('plotly.js/src/components/errorbars'),
    require('plotly.js/src/components/colorscale'),
    require('plotly.js/src/components/colorbar'),
    require('plotly.js/src/components/legend'), // after shapes, as in src/core.js
    require('plotly.js/src/components/fx'), // after legend
    require('plotly.js/src/components/modebar'),
]);
register([require('plotly.js/src/locale-en'), require('plotly.js/src/locale-en-us')]);

Plotly.Icons = require('plotly.js/src/fonts/ploticon');
var Fx = require('plotly.js/src/components/fx');
var Plots = require('plotly.js/src/plots/plots');
Plotly.Plots = { resize: Plots.resize, graphJson: Plots.graphJson };
Plotly.Fx = { hover: Fx.hover, unhover: Fx.unhover, loneHover: Fx.loneHover, loneUnhover: Fx.loneUnhover };
Plotly.Snapshot = require('plotly.js/src/snapshot');
Plotly.PlotSchema = require('plotly.js/src/plot_api/plot_schema');

register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/box'),
    require('plotly.js/lib/heatmap'),
]);

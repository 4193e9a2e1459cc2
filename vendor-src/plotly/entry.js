// The site's plotly.js: the core (scatter, annotations, shapes, legend, hover, the toolbar,
// locales, Plotly.react) and the three other trace types the charts draw. Built by
// build.sh; tests/test_page_weight.py fails when a chart draws a trace type not here.
'use strict';
var Plotly = require('plotly.js/lib/core');
Plotly.register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/box'),
    require('plotly.js/lib/heatmap'),
]);
module.exports = Plotly;

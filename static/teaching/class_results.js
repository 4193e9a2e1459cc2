// The class overlay: the student under the pointer, or the one picked from the list, is
// drawn thick and dark over the others' thin lines; the lesson's case keeps its own style.
// charts.js draws the chart and says so with a "chart:drawn" event.
(function () {
  var PLOT_ID = "overlay-plot";
  var picked = "";

  function studentTraces(plot) {
    var out = [];
    plot.data.forEach(function (trace, i) { if (trace.showlegend === false) out.push(i); });
    return out;
  }

  function emphasise(plot, name) {
    if (!window.Plotly || !plot || !plot.data) return;
    var indices = studentTraces(plot);
    var widths = [], opacities = [], colours = [];
    indices.forEach(function (i) {
      var on = name && plot.data[i].name === name;
      widths.push(on ? 3.5 : 1);
      opacities.push(name ? (on ? 1 : 0.2) : 0.45);
      colours.push(on ? "#bc4c00" : "#1f6feb");
    });
    window.Plotly.restyle(plot, { "line.width": widths, opacity: opacities, "line.color": colours }, indices);
  }

  document.addEventListener("chart:drawn", function (event) {
    var plot = event.target.querySelector("#" + PLOT_ID);
    if (!plot) return;
    var pick = document.getElementById("pick-student");
    picked = pick ? pick.value : "";
    plot.on("plotly_hover", function (data) {
      var trace = data.points && data.points[0] && data.points[0].data;
      if (trace && trace.showlegend === false) emphasise(plot, trace.name);
    });
    plot.on("plotly_unhover", function () { emphasise(plot, picked); });
    if (picked) emphasise(plot, picked);
  });

  document.addEventListener("change", function (event) {
    if (event.target.id !== "pick-student") return;
    picked = event.target.value;
    emphasise(document.getElementById(PLOT_ID), picked);
  });
})();

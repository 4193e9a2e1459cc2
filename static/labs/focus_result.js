// After Run (or Run before/after) the form is swapped for a new one: focus goes to the
// first field the server refused, else to the run, so a keyboard or screen-reader user
// lands on what happened (rather than on <body>). htmx keeps that focus by the run's id
// while it polls.
(function () {
  function focusResult(elt) {
    // An outerHTML swap leaves `elt` detached: find its replacement by id.
    var panel = elt && elt.id ? document.getElementById(elt.id) : null;
    if (!panel || !panel.matches(".lab-panel")) return;
    var target = panel.querySelector(".has-error input, .has-error select, .has-error textarea") ||
      panel.querySelector(".run-body");
    // Without scrolling: the student stays where the control they moved is, with the main
    // chart on its stage beside it (stage.js); a screen reader still reads the result.
    if (target) target.focus({ preventScroll: target.matches(".run-body") && !!panel.querySelector(".stage-chart") });
  }
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.requestConfig && event.detail.requestConfig.verb === "post") {
      focusResult(event.detail.elt);
    }
  });
})();

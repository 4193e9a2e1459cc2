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
    if (target) target.focus();
  }
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.requestConfig && event.detail.requestConfig.verb === "post") {
      focusResult(event.detail.elt);
    }
  });
})();

// Predict first: the slider beside a prediction's number box fills it (and follows it).
// Without JavaScript the slider stays hidden and the box is typed in.
(function () {
  "use strict";
  function show(root) {
    root.querySelectorAll("input[data-predict-for]").forEach(function (slider) {
      slider.hidden = false;
    });
  }
  document.addEventListener("htmx:load", function (event) { show(event.detail.elt); });
  document.addEventListener("DOMContentLoaded", function () { show(document); });
  document.addEventListener("input", function (event) {
    var el = event.target;
    if (el.matches && el.matches("input[data-predict-for]")) {
      var box = document.getElementById(el.dataset.predictFor);
      if (box) { box.value = el.value; }
    } else if (el.matches && el.matches(".predict-number input[type=text]")) {
      var slider = document.querySelector('input[data-predict-for="' + el.id + '"]');
      var value = parseFloat(el.value);
      if (slider && !isNaN(value)) { slider.value = String(value); }
    }
  });
})();

// "Reset to the lesson's values": every field of the form back to the value the page started
// with (written on it by the server as data-start), without a request; then Run runs those.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-reset-form]");
  if (!button) return;
  var form = button.closest("form");
  form.querySelectorAll("[data-start]").forEach(function (field) {
    if (field.disabled) return;
    if (field.type === "checkbox") field.checked = field.dataset.start === "true";
    else field.value = field.dataset.start;
  });
  var first = form.querySelector("[data-start]:not([disabled])");
  if (first) first.focus();
});

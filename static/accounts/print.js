// The slips page's Print button (a static file: the site's CSP allows no inline script).
document.querySelectorAll("[data-print]").forEach(function (button) {
  button.addEventListener("click", function () { window.print(); });
});

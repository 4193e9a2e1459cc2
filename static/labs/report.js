// The report's Print button: the browser's own print dialog (the page has print styles).
document.addEventListener("click", function (event) {
  if (event.target.closest("[data-print]")) window.print();
});

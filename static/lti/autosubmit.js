// The deep-linking answer goes back to the LMS at once; the button stays for a browser
// without scripts.
document.querySelectorAll("form[data-autosubmit]").forEach((form) => form.submit());

// Progressive enhancement: a button copying the new token (the field works without it).
document.querySelectorAll("[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {
        document.execCommand("copy"); done();
      });
    } else {
      document.execCommand("copy"); done();
    }
  });
});

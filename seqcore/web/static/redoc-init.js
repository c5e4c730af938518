// Redoc over the OpenAPI document the page carries (seqcore.web.redoc).
(function () {
  var document_ = JSON.parse(document.getElementById("openapi-document").textContent);
  Redoc.init(document_, { hideDownloadButton: false, expandResponses: "200,201" },
             document.getElementById("redoc"));
})();

// GraphiQL against seqcore's /api/graphql with the signed-in session. The session's CSRF
// token goes in X-CSRF-Token; `?query=`, `?variables=` and `?headers=` prefill the editors
// (a personal access token can be tried by putting an Authorization header in Headers).
(function () {
  function meta(name) {
    return document.querySelector('meta[name="' + name + '"]').getAttribute("content");
  }
  var params = new URLSearchParams(window.location.search);
  var fetcher = GraphiQL.createFetcher({
    url: meta("seqcore-graphql-url"),
    headers: { "X-CSRF-Token": meta("seqcore-csrf-token") },
  });
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: "query {\n  currentUser {\n    email\n  }\n}\n",
    query: params.get("query") || undefined,
    variables: params.get("variables") || undefined,
    headers: params.get("headers") || undefined,
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: params.get("headers") ? "headers" : false,
  }));
})();

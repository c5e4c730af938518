<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>REST API - seqcore</title>
<link rel="stylesheet" href="${static('site.css')}">
</head>
<body>
<header class="graphiql-bar">
<a href="${request.route_path('web.profile')}">seqcore</a>
<a href="${request.route_path('web.graphiql')}">GraphiQL</a>
<span>Signed in as ${identity.username}</span>
<form method="post" action="${request.route_path('web.sign_out')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit">Sign out</button>
</form>
</header>
<div id="redoc" role="main" aria-label="REST API description">Loading the description...</div>
<noscript><p>Reading the description here needs JavaScript. Without it, fetch
<code>/api/openapi.json</code> with a token.</p></noscript>
<script id="openapi-document" type="application/json">${document | n}</script>
<script src="${request.route_path('web.redoc_asset', name='redoc.standalone.js')}"></script>
<script src="${static('redoc-init.js')}"></script>
</body>
</html>

<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="seqcore-graphql-url" content="${request.route_path('graphql')}">
<meta name="seqcore-csrf-token" content="${csrf_token}">
<title>GraphiQL - seqcore</title>
<link rel="stylesheet" href="${request.route_path('web.graphiql_asset', name='graphiql.min.css')}">
<link rel="stylesheet" href="${static('graphiql.css')}">
</head>
<body>
<header class="graphiql-bar">
<a href="${request.route_path('web.profile')}">seqcore</a>
<a href="${request.route_path('web.redoc')}">REST API</a>
<span>Signed in as ${identity.username}</span>
<form method="post" action="${request.route_path('web.sign_out')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit">Sign out</button>
</form>
</header>
<div id="graphiql" role="main" aria-label="GraphiQL">Loading GraphiQL...</div>
<noscript><p>GraphiQL needs JavaScript. Without it, send queries to
<code>${request.route_path('graphql')}</code> with a personal access token.</p></noscript>
<script src="${request.route_path('web.graphiql_asset', name='react.production.min.js')}"></script>
<script src="${request.route_path('web.graphiql_asset', name='react-dom.production.min.js')}"></script>
<script src="${request.route_path('web.graphiql_asset', name='graphiql.min.js')}"></script>
<script src="${static('graphiql-init.js')}"></script>
</body>
</html>

<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${self.title()} - seqcore</title>
<link rel="stylesheet" href="${static('site.css')}">
${self.head()}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<nav aria-label="Main">
<a href="${request.route_path('web.home')}" class="brand">seqcore</a>
% if identity is not None:
<a href="${request.route_path('web.profile')}">Profile</a>
<a href="${request.route_path('web.tokens')}">Access Tokens</a>
<a href="${request.route_path('web.graphiql')}">GraphiQL</a>
<a href="${request.route_path('web.redoc')}">REST API</a>
<form method="post" action="${request.route_path('web.sign_out')}" class="inline">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit">Sign out</button>
</form>
% else:
<a href="${request.route_path('web.sign_in')}">Sign in</a>
% endif
</nav>
</header>
<main id="main">
${self.body()}
</main>
</body>
</html>
<%def name="head()"></%def>

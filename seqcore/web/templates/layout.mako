## The frame of every page: the main navigation, the page's heading area, flash messages and
## the scripts (Turbo and Stimulus as ES modules through an import map; pages work without).
## A page defines title(), and may define head(), breadcrumbs() and scripts().
<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${self.title()} - seqcore</title>
<link rel="stylesheet" href="${static('site.css')}">
<script type="importmap">
{"imports": {"@hotwired/turbo": "${vendor('turbo.es2017-esm.js') | n, js_string}",
 "@hotwired/stimulus": "${vendor('stimulus.js') | n, js_string}",
 "seqcore/application": "${static('application.js') | n, js_string}",
 "seqcore/controllers": "${static('controllers.js') | n, js_string}",
 "seqcore/uploads": "${static('uploads.js') | n, js_string}"}}
</script>
<script defer src="${vendor('hash-wasm-md5.umd.min.js')}"></script>
<script type="module">import "seqcore/application"; import "seqcore/controllers"; import "seqcore/uploads";</script>
${self.head()}
</head>
<body>
<a class="skip" href="#main">${_("Skip to content")}</a>
<header class="site">
<nav aria-label="${_('Main')}">
<a href="${request.route_path('web.home')}" class="brand">seqcore</a>
% if identity is not None:
<ul class="nav">
% for entry in nav:
<% href = request.route_path(entry.route) %>
<li><a href="${href}"${' data-turbo="false"' if entry.full_load else '' | n}\
${' aria-current="page"' if request.path == href else '' | n}>${_(entry.label)}</a></li>
% endfor
</ul>
<span class="account"><a href="${request.route_path('web.profile')}">${identity.username}</a></span>
<form method="post" action="${request.route_path('web.sign_out')}" class="inline">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit">${_("Sign out")}</button>
</form>
% else:
<a href="${request.route_path('web.sign_in')}">${_("Sign in")}</a>
% endif
</nav>
</header>
<main id="main">
${self.breadcrumbs()}
% for message in flashes:
<p role="status" class="notice">${message}</p>
% endfor
${self.body()}
</main>
<footer class="site">
<p>seqcore &middot; <a href="${request.route_path('web.redoc')}" data-turbo="false">${_("REST reference")}</a>
&middot; <a href="${request.route_path('web.graphiql')}" data-turbo="false">GraphiQL</a></p>
</footer>
${self.scripts()}
</body>
</html>
<%!
import json


def js_string(value):
    """A URL inside the import map's JSON (escaped as JSON, and so it cannot end the script)."""
    return json.dumps(str(value))[1:-1].replace("</", "<\\/")
%>
<%def name="head()"></%def>
<%def name="breadcrumbs()"></%def>
<%def name="scripts()"></%def>

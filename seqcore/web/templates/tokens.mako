<%inherit file="layout.mako"/>
<%def name="title()">Access Tokens</%def>
<h1>Access Tokens</h1>
<p>A personal access token lets a program use the GraphQL API (<code>/api/graphql</code>) as
you, with HTTP Basic authentication: your e-mail address as the user name and the token as the
password. Do not share it. Rotating a token revokes it at once and gives you a new secret
with the same name, scopes and lifetime. Expired and revoked tokens are deleted
${request.registry.settings['seqcore.tokens.cleanup_after_days']} days after they stopped
working.</p>

% if new_token is not None:
<section aria-labelledby="new-token-heading" class="notice" role="status">
<h2 id="new-token-heading">Your new personal access token</h2>
% if rotated:
<p>The token was rotated: the old secret has stopped working. Copy the new one now: it will
not be shown again.</p>
% else:
<p>Copy it now: it will not be shown again.</p>
% endif
<p><label for="new-token">Token "${new_token.record.name}"</label><br>
<input id="new-token" readonly value="${new_token.secret}" size="60" spellcheck="false">
<button type="button" id="copy-token" data-copy="new-token" hidden>Copy token</button></p>
</section>
<script src="${static('copy.js')}" defer></script>
% endif

<h2>Create a personal access token</h2>
% if problems:
<div role="alert" class="error">
<p>The token was not created:</p>
<ul>
% for field, message in problems.items():
<li><a href="#${field}-field">${message}</a></li>
% endfor
</ul>
</div>
% endif
<form method="post" action="${request.route_path('web.tokens')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<p><label for="name-field">Token name</label><br>
<input id="name-field" name="name" value="${form.get('name', '')}" maxlength="255" required></p>
% if rules.require_expiry:
<p><label for="expires_at-field">Expiration date (required, at most ${rules.max_days} days from
today)</label><br>
<input id="expires_at-field" name="expires_at" type="date" value="${form.get('expires_at', '')}"
 max="${latest_expiry.isoformat()}" required></p>
% else:
<p><label for="expires_at-field">Expiration date (optional)</label><br>
<input id="expires_at-field" name="expires_at" type="date" value="${form.get('expires_at', '')}"></p>
% endif
<fieldset id="scopes-field">
<legend>Scopes</legend>
<p><input type="checkbox" id="scope-read_api" name="scopes" value="read_api"
% if 'read_api' in form.get('scopes', []):
checked
% endif
> <label for="scope-read_api"><code>read_api</code>: queries that only read</label></p>
<p><input type="checkbox" id="scope-api" name="scopes" value="api"
% if 'api' in form.get('scopes', []):
checked
% endif
> <label for="scope-api"><code>api</code>: queries and mutations (changes data)</label></p>
</fieldset>
<p><button type="submit">Create personal access token</button></p>
</form>

<h2>Your tokens</h2>
% if tokens:
<table>
<caption class="visually-hidden">Personal access tokens</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th>
<th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th>
<th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
% for token in tokens:
<tr>
<td>${token.name}</td>
<td>${', '.join(token.scope_list)}</td>
<td>${fmt(token.created)}</td>
<td>${fmt(token.last_used_at) if token.last_used_at else 'Never'}</td>
<td>${ends(token).date().isoformat() if ends(token) else 'Never'}</td>
<td>${token_status(token)}</td>
<td>
% if token_status(token) == 'Active':
<form method="post" action="${request.route_path('web.token_revoke', id=token.id)}" class="inline">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" aria-label="Revoke ${token.name}">Revoke</button>
</form>
<form method="post" action="${request.route_path('web.token_rotate', id=token.id)}" class="inline">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" aria-label="Rotate ${token.name}">Rotate</button>
</form>
% endif
</td>
</tr>
% endfor
</tbody>
</table>
% else:
<p>You have no personal access tokens.</p>
% endif

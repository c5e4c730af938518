<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%def name="title()">${_("Bot accounts")} ${namespace.name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
% if kind == "project":
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li><a href="${request.route_path('web.project', id=namespace.id)}">${namespace.name}</a></li>
<li><a href="${request.route_path('web.project.manage', id=namespace.id)}">${_("Manage")}</a></li>
% else:
<li><a href="${request.route_path('web.groups')}">${_("Groups")}</a></li>
<li><a href="${request.route_path('web.group', id=namespace.id)}">${namespace.full_path}</a></li>
% endif
<li aria-current="page">${_("Bot accounts")}</li>
</ol></nav>
</%def>
<%def name="scopes_field(prefix, chosen)">
<fieldset id="field-scopes"><legend>${_("Scopes")}</legend>
<span><input type="checkbox" id="${prefix}-read_api" name="scopes" value="read_api"${' checked' if 'read_api' in chosen else '' | n}><label for="${prefix}-read_api"><code>read_api</code>: ${_("queries that only read")}</label></span>
<span><input type="checkbox" id="${prefix}-api" name="scopes" value="api"${' checked' if 'api' in chosen else '' | n}><label for="${prefix}-api"><code>api</code>: ${_("queries and mutations (changes data)")}</label></span>
</fieldset>
</%def>
<h1>${_("Bot accounts")} ${namespace.name}</h1>
<p>${_("A bot account lets a program use the GraphQL API (/api/graphql) with its own personal access tokens, at the access level it was made with: its e-mail address as the user name and a token as the password. A bot never signs in on these pages. Deleting it ends its tokens at once.")}</p>
% if new_token is not None:
<section aria-labelledby="new-token-heading" class="notice" role="status">
<h2 id="new-token-heading">${_("The new personal access token")}</h2>
<p>${_("Copy it now: it will not be shown again.")}</p>
<p><label for="new-token">${new_token.record.user.email} — ${new_token.record.name}</label><br>
<input id="new-token" readonly value="${new_token.secret}" size="60" spellcheck="false">
<button type="button" id="copy-token" data-copy="new-token" hidden>${_("Copy token")}</button></p>
</section>
<script src="${static('copy.js')}" defer></script>
% endif
<h2 id="bots">${_("Bots")}</h2>
% if bots:
% for bot, user, level, tokens in bots:
<section class="card" aria-labelledby="bot-${bot.id}">
<h3 id="bot-${bot.id}">${user.username}</h3>
<dl class="facts">
<dt>${_("E-mail (user name for the API)")}</dt><dd><code>${user.email}</code></dd>
<dt>${_("Access level")}</dt><dd>${_(level_label(level))}</dd>
<dt>${_("Created")}</dt><dd>${fmt.when(bot.created)}</dd>
</dl>
<div class="table-wrap"><table aria-labelledby="bot-${bot.id}">
<thead><tr><th scope="col">${_("Token")}</th><th scope="col">${_("Scopes")}</th>
<th scope="col">${_("Expires")}</th><th scope="col">${_("Last used")}</th><th scope="col">${_("Status")}</th>
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th></tr></thead>
<tbody>
% for token in tokens:
<tr><td>${token.name}</td><td>${", ".join(token.scope_list)}</td><td>${fmt.when(token.expires_at)}</td>
<td>${fmt.when(token.last_used_at)}</td><td>${_(state(token))}</td>
<td>
% if not token.revoked:
<form method="post" class="inline" action="${request.route_path(base + '.revoke', id=namespace.id, bot=bot.id, token=token.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Revoke')} ${token.name}">${_("Revoke")}</button></form>
% endif
</td></tr>
% endfor
</tbody></table></div>
<form method="post" action="${request.route_path(base + '.tokens', id=namespace.id, bot=bot.id)}" class="table-tools">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="token-name-${bot.id}">${_("Token name")}</label><input id="token-name-${bot.id}" name="name" required maxlength="255"></div>
<div class="field"><label for="token-expires-${bot.id}">${_("Expires on (optional)")}</label><input id="token-expires-${bot.id}" name="expires_at" type="date"></div>
${scopes_field("token-%s" % bot.id, [])}
<div class="field"><button type="submit">${_("Add a token")}</button></div>
</form>
<form method="post" action="${request.route_path(base + '.delete', id=namespace.id, bot=bot.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Delete bot')} ${user.username}">${_("Delete bot")}</button></form>
</section>
% endfor
% else:
<p class="muted">${_("None.")}</p>
% endif
<h2 id="new-bot">${_("New bot account")}</h2>
${forms.problems_summary(problems, _("The bot account was not made:"))}
<form method="post" action="${request.route_path(base, id=namespace.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="field-accessLevel">${_("Access level")}</label><select id="field-accessLevel" name="access_level">
% for value, label in levels:
<option value="${value}"${' selected' if str(value) == form.get('access_level', '20') else '' | n}>${_(label)}</option>
% endfor
</select></div>
<div class="field"><label for="field-tokenName">${_("Token name")}</label><input id="field-tokenName" name="token_name" value="${form.get('token_name', '')}" required maxlength="255"></div>
<div class="field"><label for="field-expiresAt">${_("Expires on (optional)")}</label><input id="field-expiresAt" name="expires_at" type="date" value="${form.get('expires_at', '')}"></div>
${scopes_field("bot", form.get("scopes", []))}
<p><button type="submit">${_("Make bot account")}</button></p>
</form>

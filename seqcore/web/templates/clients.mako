<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%def name="title()">${_("OAuth clients")}</%def>
<h1>${_("OAuth clients")}</h1>
<p>${_("The applications that sign people in to the REST API with OAuth2. A client's secret is shown once, when it is made or replaced; deleting a client ends every token it was given.")}</p>
% if secret is not None:
<% client, value = secret %>
<section aria-labelledby="secret-heading" class="notice" role="status">
<h2 id="secret-heading">${_("The secret of ${name}", name=client.client_id)}</h2>
% if regenerated:
<p>${_("The old secret has stopped working. Copy the new one now: it will not be shown again.")}</p>
% else:
<p>${_("Copy it now: it will not be shown again.")}</p>
% endif
<p><label for="client-secret">${_("Client secret")}</label><br>
<input id="client-secret" readonly value="${value}" size="50" spellcheck="false">
<button type="button" data-copy="client-secret" hidden>${_("Copy the secret")}</button></p>
</section>
<script src="${static('copy.js')}" defer></script>
% endif
<h2 id="clients">${_("Clients")}</h2>
% if clients:
<div class="table-wrap"><table aria-labelledby="clients">
<thead><tr><th scope="col">${_("Client id")}</th><th scope="col">${_("Grant types")}</th>
<th scope="col">${_("Scopes")}</th><th scope="col">${_("Redirect URIs")}</th>
<th scope="col">${_("Token lifetime (s)")}</th><th scope="col">${_("Refresh lifetime (s)")}</th>
<th scope="col">${_("Status")}</th><th scope="col">${_("Created")}</th>
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th></tr></thead>
<tbody>
% for item in clients:
<tr><td><code>${item.client_id}</code>\
% if item.lenient:
 <span class="badge">${_("lenient")}</span>\
% endif
</td><td>${" ".join(item.grant_type_list)}</td><td>${" ".join(item.scope_list)}</td>
<td>${" ".join(item.redirect_uri_list)}</td><td>${item.access_token_seconds}</td>
<td>${item.refresh_token_seconds if item.refresh_token_seconds is not None else "-"}</td>
<td>${_("revoked") if item.revoked else _("active")}</td><td>${fmt.when(item.created)}</td>
<td><form method="post" class="inline" action="${request.route_path('web.admin.client.secret', id=item.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('New secret for ${name}', name=item.client_id)}">${_("New secret")}</button></form>
<form method="post" class="inline" action="${request.route_path('web.admin.client.delete', id=item.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="danger" aria-label="${_('Delete ${name}', name=item.client_id)}">${_("Delete")}</button></form></td></tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("No client yet.")}</p>
% endif
<section aria-labelledby="new-client">
<h2 id="new-client">${_("New client")}</h2>
${forms.problems_summary(problems, _("The client was not created:"))}
<form method="post" action="${request.route_path('web.admin.clients')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
${forms.field("client_id", _("Client id"), form.get("client_id", ""), problems, required=True, hint=_("(no spaces)"))}
<fieldset id="field-grant_types"><legend>${_("Grant types")}</legend>
% for grant in grants:
<span><input type="checkbox" id="grant-${grant}" name="grant_types" value="${grant}"${' checked' if grant in form.get('grant_types', []) else '' | n}><label for="grant-${grant}">${grant}</label></span>
% endfor
% if problems.get("grant_types"):
<span class="problem">${problems["grant_types"]}</span>
% endif
</fieldset>
<fieldset id="field-scopes"><legend>${_("Scopes")}</legend>
% for scope in scopes:
<span><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"${' checked' if scope in form.get('scopes', []) else '' | n}><label for="scope-${scope}">${scope}</label></span>
% endfor
% if problems.get("scopes"):
<span class="problem">${problems["scopes"]}</span>
% endif
</fieldset>
<div class="field"><label for="field-redirect_uris">${_("Redirect URIs")} <span class="hint">${_("(one a line; needed by the authorization_code grant)")}</span></label>
<textarea id="field-redirect_uris" name="redirect_uris" rows="3"${(' aria-invalid="true" aria-describedby="problem-redirect_uris"') if problems.get('redirect_uris') else '' | n}>${form.get("redirect_uris", "")}</textarea>
% if problems.get("redirect_uris"):
<span class="problem" id="problem-redirect_uris">${problems["redirect_uris"]}</span>
% endif
</div>
${forms.field("token_seconds", _("Token lifetime (s)"), form.get("token_seconds", ""), problems, type="number", required=True)}
${forms.field("refresh_seconds", _("Refresh lifetime (s)"), form.get("refresh_seconds", ""), problems, type="number", required=True)}
<div class="field"><span><input type="checkbox" id="field-lenient" name="lenient"${' checked' if form.get('lenient') else '' | n}><label for="field-lenient">${_("Lenient (may send unknown fields when creating resources, as IRIDA's uploader does)")}</label></span></div>
<p><button type="submit">${_("Create client")}</button></p>
</form>
</section>

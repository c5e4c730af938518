<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%namespace name="remote_form" file="remote_form.mako"/>
<%def name="title()">${_("Remote API register")}</%def>
<h1>${_("Remote API register")}</h1>
<p>${_("The other installs people may connect their accounts to, each with the OAuth2 client this install is registered as there. Register that client there for the authorization_code and refresh_token grants, with the read scope and the redirect URI shown here. The client secret is never shown again.")}</p>
<h2 id="remotes">${_("Remote APIs")}</h2>
% if remotes:
<div class="table-wrap"><table aria-labelledby="remotes">
<thead><tr><th scope="col">${_("Name")}</th><th scope="col">${_("Kind")}</th>
<th scope="col">${_("Base URL")}</th><th scope="col">${_("Client id")}</th>
<th scope="col">${_("Redirect URI to register there")}</th><th scope="col">${_("Created")}</th>
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th></tr></thead>
<tbody>
% for remote in remotes:
<tr><td><a href="${request.route_path('web.admin.remote', id=remote.id)}">${remote.name}</a></td>
<td>${remote.kind}</td><td>${remote.base_url}\
% if remote.graphql_url:
<br><span class="muted">GraphQL: ${remote.graphql_url}</span>\
% endif
</td><td><code>${remote.client_id}</code></td><td><code>${callbacks[remote.id]}</code></td>
<td>${fmt.when(remote.created)}</td>
<td><form method="post" class="inline" action="${request.route_path('web.admin.remote.delete', id=remote.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="danger" aria-label="${_('Delete ${name}', name=remote.name)}">${_("Delete")}</button></form></td></tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("No remote API yet.")}</p>
% endif
<section aria-labelledby="new-remote">
<h2 id="new-remote">${_("New remote API")}</h2>
${forms.problems_summary(problems, _("The remote API was not registered:"))}
<form method="post" action="${request.route_path('web.admin.remotes')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
${remote_form.fields(form, problems, kinds)}
<p><button type="submit">${_("Register remote API")}</button></p>
</form>
</section>

<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%def name="title()">${_("Remote APIs")}</%def>
<h1>${_("Remote APIs")}</h1>
<p>${_("Other installs (IRIDA, IRIDA Next, seqcore) you can read from here. Connecting signs you in there with your own account: this install then reads only what that account may read, and keeps the connection alive until you disconnect.")}</p>
% if error:
<div role="alert" class="error"><p>${_("The connection was not made:")} ${error}</p></div>
% endif
% if remotes:
<div class="table-wrap"><table aria-labelledby="remotes-heading">
<caption id="remotes-heading" class="visually-hidden">${_("Remote APIs")}</caption>
<thead><tr><th scope="col">${_("Name")}</th><th scope="col">${_("Address")}</th>
<th scope="col">${_("Kind")}</th><th scope="col">${_("Connection")}</th>
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th></tr></thead>
<tbody>
% for remote in remotes:
<% connection = connections.get(remote.id) %>
<tr><td>${remote.name}\
% if remote.description:
<br><span class="muted">${remote.description}</span>\
% endif
</td><td><a href="${remote.base_url}" rel="noopener noreferrer">${remote.base_url}</a></td>
<td>${"IRIDA Next" if remote.kind == "irida-next" else "IRIDA"}</td>
% if connection is not None:
<td><span class="badge">${_("connected")}</span> ${fmt.when(connection.created)}\
% if connection.remote_login:
<br><span class="muted">${_("as ${email}, with a personal access token", email=connection.remote_login)}</span>\
% endif
</td>
<td><form method="post" class="inline" action="${request.route_path('web.remote.disconnect', id=remote.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Disconnect from ${name}', name=remote.name)}">${_("Disconnect")}</button></form></td>
% elif remote.kind == "irida-next":
<td>${_("not connected")}</td>
<td><form method="post" action="${request.route_path('web.remote.connect', id=remote.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<label for="remote-email-${remote.id}">${_("E-mail of your account there")}</label>
<input type="email" id="remote-email-${remote.id}" name="email" required maxlength="255" autocomplete="off">
<label for="remote-token-${remote.id}">${_("Personal access token created there")}</label>
<input type="password" id="remote-token-${remote.id}" name="token" required maxlength="1024" autocomplete="off">
<button type="submit" aria-label="${_('Connect to ${name}', name=remote.name)}">${_("Connect")}</button></form></td>
% else:
<td>${_("not connected")}</td>
<td><form method="post" class="inline" data-turbo="false" action="${request.route_path('web.remote.connect', id=remote.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" aria-label="${_('Connect to ${name}', name=remote.name)}">${_("Connect")}</button></form></td>
% endif
</tr>
% endfor
</tbody></table></div>
% if any(remote.kind == "irida-next" for remote in remotes):
<p class="muted">${_("IRIDA Next takes no sign-in from another install: connect to it with a personal access token you create on your profile there (read access is enough). Disconnecting forgets the token here but cannot revoke it there: revoke it on the remote yourself.")}</p>
% endif
% else:
<p class="muted">${_("No remote API is registered yet: an administrator registers them.")}</p>
% endif

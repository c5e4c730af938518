<%inherit file="layout.mako"/>
<%def name="title()">${_("Synchronize a remote project")}</%def>
<h1>${_("Synchronize a remote project")}</h1>
<p>${_("A synchronized project mirrors a project of another install: its samples, metadata and files are copied here and kept in step, and are read-only here; you can run analyses on them.")}</p>
% if not apis:
<p>${_("Your account is connected to no remote API: connect to one first.")}</p>
% else:
<form method="get" action="${request.route_path('web.synchronized')}" class="table-tools">
<div class="field"><label for="remote">${_("Remote API")}</label>
<select id="remote" name="remote">
% for api in apis:
<option value="${api.id}"${' selected' if chosen is not None and chosen.id == api.id else '' | n}>${api.name}</option>
% endfor
</select></div>
<div class="field"><button type="submit">${_("List its projects")}</button></div>
</form>
% endif
% if problem:
<p class="problem" role="alert">${_("The remote API could not be read:")} ${problem}</p>
% endif
% if chosen is not None and not problem:
<h2>${_("Projects on ${name}", mapping={"name": chosen.name})}</h2>
% if not projects:
<p>${_("Your account there reads no project.")}</p>
% else:
<table>
<thead><tr><th scope="col">${_("Project")}</th><th scope="col">${_("Description")}</th><th scope="col">${_("Synchronize")}</th></tr></thead>
<tbody>
% for p in projects:
<tr><td>${p.name} <code>${p.identifier}</code></td><td>${p.description or ""}</td>
<td><form method="post" action="${request.route_path('web.synchronized')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="hidden" name="remote" value="${chosen.id}">
<input type="hidden" name="project_url" value="${p.url}">
<label for="frequency-${loop.index}">${_("How often")}</label>
<select id="frequency-${loop.index}" name="frequency">
% for value, label in frequencies.items():
<option value="${value}"${' selected' if value == 'WEEKLY' else '' | n}>${_(label)}</option>
% endfor
</select>
<button type="submit">${_("Synchronize")}</button>
</form></td></tr>
% endfor
</tbody>
</table>
% endif
% endif

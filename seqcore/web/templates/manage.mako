<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%namespace name="life" file="lifecycle.mako"/>
<%namespace name="sharing" file="shares.mako"/>
<%def name="title()">${_("Manage")} ${project.name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a></li>
<li aria-current="page">${_("Manage")}</li>
</ol></nav>
</%def>
<h1>${_("Manage")} ${project.name}</h1>
% if can_write:
<p><a href="${request.route_path('web.project.bots', id=project.id)}">${_("Bot accounts")}</a></p>
% endif
<h2 id="members">${_("Members")}</h2>
<div class="table-wrap"><table aria-labelledby="members">
<thead><tr><th scope="col">${_("Account")}</th><th scope="col">${_("Role")}</th>
<th scope="col">${_("Metadata level")}</th><th scope="col">${_("Expires")}</th>
% if can_write:
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th>
% endif
</tr></thead>
<tbody>
% for user, member in members:
<tr><td>${user.username}</td><td>${_(roles.get(member.role, member.role))}</td><td>${member.metadata_role}</td><td>${fmt.when(member.expires_at)}\
% if not member.active:
 <span class="badge">${_("expired")}</span>\
% endif
</td>
% if can_write:
<td><form method="post" class="inline" action="${request.route_path('web.project.member.expiry', id=project.id, user=user.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="date" name="expires_at" aria-label="${_('Expires on (optional)')} ${user.username}" value="${member.expires_at.date().isoformat() if member.expires_at else ''}">
<button type="submit" class="secondary">${_("Change")}</button></form>
<form method="post" class="inline" action="${request.route_path('web.project.member.remove', id=project.id, user=user.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Remove')} ${user.username}">${_("Remove")}</button></form></td>
% endif
</tr>
% endfor
</tbody></table></div>
% if can_write:
<form method="post" action="${request.route_path('web.project.members', id=project.id)}" class="table-tools">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="member-username">${_("Account name")}</label><input id="member-username" name="username" required></div>
<div class="field"><label for="member-role">${_("Role")}</label><select id="member-role" name="role">
% for value, label in roles.items():
<option value="${value}">${_(label)}</option>
% endfor
</select></div>
<div class="field"><label for="member-level">${_("Metadata level")}</label><select id="member-level" name="metadata_role">
% for level in levels:
<option>${level}</option>
% endfor
</select></div>
<div class="field"><label for="member-expires">${_("Expires on (optional)")}</label><input id="member-expires" name="expires_at" type="date"></div>
<div class="field"><button type="submit">${_("Add member")}</button></div>
</form>
% endif
${sharing.section(shares, request.route_path('web.project.shares', id=project.id), 'web.project.share.remove', 'web.project.share.level', project.id, can_write, share_levels, share_groups)}
<h2 id="fields">${_("Metadata fields")}</h2>
% if fields:
<div class="table-wrap"><table aria-labelledby="fields">
<thead><tr><th scope="col">${_("Field")}</th><th scope="col">${_("Type")}</th>
<th scope="col">${_("Restriction")}</th>
% if can_write:
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th>
% endif
</tr></thead>
<tbody>
% for field in fields:
<tr><td>${field.name}</td><td>${field.type}${(": " + ", ".join(field.choices)) if field.choices else ""}</td><td>${field.restriction}</td>
% if can_write:
<td><form method="post" class="inline" action="${request.route_path('web.project.field.remove', id=project.id, field=field.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Remove')} ${field.name}">${_("Remove")}</button></form></td>
% endif
</tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("No declared field: every field is free text, open to every member.")}</p>
% endif
% if can_write:
<form method="post" action="${request.route_path('web.project.fields', id=project.id)}" class="table-tools">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="field-name">${_("Field name")}</label><input id="field-name" name="name" required></div>
<div class="field"><label for="field-type">${_("Type")}</label><select id="field-type" name="type">
% for kind in ("text", "number", "date", "list"):
<option>${kind}</option>
% endfor
</select></div>
<div class="field"><label for="field-choices">${_("Choices")} <span class="hint">${_("(list: comma-separated)")}</span></label><input id="field-choices" name="choices"></div>
<div class="field"><label for="field-restriction">${_("Restriction")}</label><select id="field-restriction" name="restriction">
% for level in levels:
<option>${level}</option>
% endfor
</select></div>
<div class="field"><button type="submit">${_("Declare field")}</button></div>
</form>
% endif
<h2 id="templates">${_("Metadata templates")}</h2>
% if templates:
<ul>
% for template in templates:
<li><a href="${request.route_path('web.project', id=project.id, _query={'template': template.id})}">${template.name}</a></li>
% endfor
</ul>
% else:
<p class="muted">${_("None.")}</p>
% endif
% if can_write and fields:
<form method="post" action="${request.route_path('web.project.templates', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="template-name">${_("Template name")}</label><input id="template-name" name="name" required></div>
<fieldset><legend>${_("Fields, in order")}</legend>
% for field in fields:
<span><input type="checkbox" id="template-field-${field.id}" name="fields" value="${field.name}"><label for="template-field-${field.id}">${field.name}</label></span>
% endfor
</fieldset>
<p><button type="submit">${_("Create template")}</button></p>
</form>
% endif
% if can_write or project.archived_at is not None:
${life.project_section(project)}
% endif
<h2 id="activity">${_("Activity")}</h2>
% if activity:
<ul>
% for entry in activity:
<li>${fmt.when(entry["created"])}: ${fmt.activity(entry)}</li>
% endfor
</ul>
% else:
<p class="muted">${_("Nothing recorded yet.")}</p>
% endif

<%inherit file="layout.mako"/>
<%def name="title()">${_(heading)}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a></li>
<li aria-current="page">${_(heading)}</li>
</ol></nav>
</%def>
<h1>${_(heading)}</h1>
<p>${_("${count} samples selected:", count=len(ids))} ${", ".join(names)}${" …" if len(ids) > len(names) else ""}</p>
<form method="post" action="${request.route_path('web.project.bulk', id=project.id, action=action)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="hidden" name="confirm" value="1">
% for sample_id in ids:
<input type="hidden" name="selected" value="${sample_id}">
% endfor
% if action in ("copy", "clone", "move"):
<div class="field"><label for="target">${_("Target project")}</label>
<select id="target" name="target" required>
% for target in targets:
<option value="${target.id}">${target.name} (${target.namespace}/${target.path})</option>
% endfor
</select></div>
% elif action == "metadata":
<div class="field"><label for="field">${_("Metadata field")}</label>
<input id="field" name="field" list="known-fields" required>
<datalist id="known-fields">
% for name in fields:
<option value="${name}">
% endfor
</datalist></div>
<div class="field"><label for="value">${_("Value")} <span class="hint">${_("(empty: remove the field)")}</span></label>
<input id="value" name="value"></div>
% endif
<p><button type="submit" class="${'danger' if action == 'remove' else ''}">${_(heading)}</button>
<a href="${request.route_path('web.project', id=project.id)}">${_("Cancel")}</a></p>
</form>

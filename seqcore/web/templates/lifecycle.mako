## Moving and archiving forms (seqcore.web.lifecycle), shown to whoever may see them; the
## operations refuse those who do not own what they would move or archive.
<%! from seqcore.web.lifecycle import destinations %>
<%def name="project_section(project)">
<h2 id="lifecycle">${_("Move or archive")}</h2>
% if project.archived_at is not None:
<p>${_("This project is archived: it is read-only and listed only among archived projects.")}</p>
<form method="post" action="${request.route_path('web.project.unarchive', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<p><button type="submit">${_("Unarchive project")}</button></p>
</form>
% else:
<form method="post" action="${request.route_path('web.project.transfer', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="transfer-group">${_("Move to")}</label>
<select id="transfer-group" name="group_id">
<option value="">${_("My own namespace")}</option>
% for group in destinations(request):
% if group.id != project.group_id:
<option value="${group.id}">${group.full_path}</option>
% endif
% endfor
</select></div>
<p><button type="submit">${_("Move project")}</button></p>
</form>
<form method="post" action="${request.route_path('web.project.archive', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<p><button type="submit" class="secondary">${_("Archive project")}</button></p>
</form>
% endif
</%def>
<%def name="group_section(group)">
<section aria-labelledby="move-group">
<h2 id="move-group">${_("Move group")}</h2>
<form method="post" action="${request.route_path('web.group.transfer', id=group.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="transfer-parent">${_("Move under")}</label>
<select id="transfer-parent" name="parent_id">
<option value="">${_("The top level")}</option>
% for parent in destinations(request, exclude=group):
% if parent.id != group.parent_id:
<option value="${parent.id}">${parent.full_path}</option>
% endif
% endfor
</select></div>
<p><button type="submit">${_("Move group")}</button></p>
</form>
</section>
</%def>

<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%def name="title()">${_("Groups")}</%def>
<%def name="branch(nodes)">
<ul class="tree">
% for node in nodes:
<li><a href="${request.route_path('web.group', id=node.group.id)}">${node.group.name}</a>
<span class="muted">${node.group.full_path}</span>
% if node.children:
${branch(node.children)}
% endif
</li>
% endfor
</ul>
</%def>
<h1>${_("Groups")}</h1>
% if roots:
<nav aria-label="${_('Group tree')}">
${branch(roots)}
</nav>
% else:
<p class="muted">${_("You belong to no group yet.")}</p>
% endif
% if can_create:
<section aria-labelledby="new-group">
<h2 id="new-group">${_("New group")}</h2>
${forms.problems_summary(problems, _("The group was not created:"))}
<form method="post" action="${request.route_path('web.groups')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
${forms.field("name", _("Group name"), form.get("name", ""), problems, required=True)}
${forms.field("path", _("Path"), form.get("path", ""), problems, hint=_("(optional: made from the name)"))}
${forms.field("description", _("Description"), form.get("description", ""), problems)}
<p><button type="submit">${_("Create group")}</button></p>
</form>
</section>
% endif

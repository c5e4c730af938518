<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%namespace name="life" file="lifecycle.mako"/>
<%namespace name="sharing" file="shares.mako"/>
<%def name="title()">${group.full_name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.groups')}">${_("Groups")}</a></li>
<li aria-current="page">${group.full_path}</li>
</ol></nav>
</%def>
<h1>${group.name}</h1>
<dl class="facts">
<dt>${_("Full path")}</dt><dd>${group.full_path}</dd>
<dt>${_("Identifier")}</dt><dd><code>${group.puid}</code></dd>
% if group.description:
<dt>${_("Description")}</dt><dd>${group.description}</dd>
% endif
</dl>
<div class="cards">
<section class="card" aria-labelledby="subgroups">
<h2 id="subgroups">${_("Subgroups")}</h2>
% if subgroups:
<ul>
% for sub in subgroups:
<li><a href="${request.route_path('web.group', id=sub.id)}">${sub.name}</a></li>
% endfor
</ul>
% else:
<p class="muted">${_("None.")}</p>
% endif
</section>
<section class="card" aria-labelledby="projects">
<h2 id="projects">${_("Projects")}</h2>
% if projects:
<ul>
% for project in projects:
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a></li>
% endfor
</ul>
% else:
<p class="muted">${_("None.")}</p>
% endif
</section>
<section class="card" aria-labelledby="members">
<h2 id="members">${_("Members")}</h2>
<table>
<thead><tr><th scope="col">${_("Account")}</th><th scope="col">${_("Access level")}</th>
<th scope="col">${_("Expires")}</th></tr></thead>
<tbody>
% for user, member in members:
<tr><td>${user.username}\
% if user.is_bot:
 <span class="badge">${_("bot")}</span>\
% endif
</td><td>${_(level_label(member.access_level))}</td>
<td>${fmt.when(member.expires_at)}\
% if not member.active:
 <span class="badge">${_("expired")}</span>\
% endif
</td></tr>
% endfor
</tbody>
</table>
</section>
</div>
${sharing.section(shares, request.route_path('web.group.shares', id=group.id), 'web.group.share.remove', 'web.group.share.level', group.id, can_write, share_levels, share_groups)}
% if can_write:
<section aria-labelledby="new-subgroup">
<h2 id="new-subgroup">${_("New subgroup")}</h2>
${forms.problems_summary(problems, _("The group was not created:"))}
<form method="post" action="${request.route_path('web.groups')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="hidden" name="parent_id" value="${group.id}">
${forms.field("name", _("Group name"), form.get("name", ""), problems, required=True)}
${forms.field("path", _("Path"), form.get("path", ""), problems, hint=_("(optional: made from the name)"))}
<p><button type="submit">${_("Create subgroup")}</button></p>
</form>
<h2>${_("Bot accounts")}</h2>
<p><a href="${request.route_path('web.group.bots', id=group.id)}">${_("Bot accounts of this group")}</a></p>
<h2>${_("New project in this group")}</h2>
<p><a href="${request.route_path('web.projects', _query={'group': group.id})}#new-project">${_("Create a project here")}</a></p>
</section>
% endif
% if can_write:
${life.group_section(group)}
% endif

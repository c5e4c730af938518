<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%def name="title()">${_("Dashboard")}</%def>
<h1>${_("Dashboard")}</h1>
<div class="cards">
<section class="card" aria-labelledby="my-groups">
<h2 id="my-groups">${_("My groups")}</h2>
% if groups:
<ul>
% for group in groups:
<li><a href="${request.route_path('web.group', id=group.id)}">${group.full_name}</a></li>
% endfor
</ul>
% else:
<p class="muted">${_("You belong to no group yet.")}</p>
% endif
<p><a href="${request.route_path('web.groups')}">${_("All groups")}</a></p>
</section>
<section class="card" aria-labelledby="my-projects">
<h2 id="my-projects">${_("My projects")}</h2>
% if projects:
<ul>
% for project in projects:
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a>
<span class="muted">${project.namespace}/${project.path}</span></li>
% endfor
</ul>
% else:
<p class="muted">${_("You have no project yet.")}</p>
% endif
<p><a href="${request.route_path('web.projects')}">${_("All projects")}</a></p>
</section>
<section class="card" aria-labelledby="running">
<h2 id="running">${_("Running analyses")}</h2>
% if running:
<ul>
% for analysis in running:
<li><a href="${request.route_path('web.analysis', id=analysis.id)}">${analysis.name}</a>
${fmt.state(analysis.state)}</li>
% endfor
</ul>
% else:
<p class="muted">${_("Nothing is running.")}</p>
% endif
% if recent:
<h3>${_("Recently finished")}</h3>
<ul>
% for analysis in recent:
<li><a href="${request.route_path('web.analysis', id=analysis.id)}">${analysis.name}</a>
${fmt.state(analysis.state)}</li>
% endfor
</ul>
% endif
<p><a href="${request.route_path('web.analyses')}">${_("All analyses")}</a></p>
</section>
<section class="card" aria-labelledby="for-programs">
<h2 id="for-programs">${_("For programs")}</h2>
<ul>
<li><a href="${request.route_path('web.tokens')}">${_("Personal access tokens")}</a></li>
<li><a href="${request.route_path('web.exports')}">${_("Data exports")}</a></li>
<li><a href="${request.route_path('web.graphiql')}" data-turbo="false">GraphiQL</a></li>
<li><a href="${request.route_path('web.redoc')}" data-turbo="false">${_("REST reference")}</a></li>
</ul>
</section>
</div>
<section aria-labelledby="activity">
<h2 id="activity">${_("Recent activity")}</h2>
% if activity:
<ul>
% for entry in activity:
<li>${fmt.when(entry["created"])}: ${fmt.activity(entry)}
<a href="${request.route_path('web.project', id=entry['project_id'])}">${_("project")}</a></li>
% endfor
</ul>
% else:
<p class="muted">${_("No activity yet.")}</p>
% endif
<p><a href="${request.route_path('web.activity')}">${_("All activity")}</a></p>
</section>

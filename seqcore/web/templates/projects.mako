<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%namespace name="tables" file="table.mako"/>
<%def name="title()">${_("Projects")}</%def>
<h1>${_("Projects")}</h1>
% if archived:
<p>${_("Archived projects: read-only until they are unarchived.")} <a href="${request.route_path('web.projects')}">${_("Show current projects")}</a></p>
% else:
<p><a href="${request.route_path('web.projects', _query={'archived': '1'})}">${_("Show archived projects")}</a></p>
% endif
${tables.render(table)}
% if can_create:
<section aria-labelledby="new-project">
<h2 id="new-project">${_("New project")}</h2>
${forms.problems_summary(problems, _("The project was not created:"))}
<form method="post" action="${request.route_path('web.projects')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
% if group_id:
<input type="hidden" name="group_id" value="${group_id}">
% endif
${forms.field("name", _("Project name"), form.get("name", ""), problems, required=True)}
${forms.field("projectDescription", _("Description"), form.get("projectDescription", ""), problems)}
${forms.field("organism", _("Organism"), form.get("organism", ""), problems)}
${forms.field("genomeSize", _("Genome size (bases)"), form.get("genomeSize", ""), problems, type="number")}
${forms.field("minimumCoverage", _("Minimum coverage"), form.get("minimumCoverage", ""), problems, type="number")}
${forms.field("maximumCoverage", _("Maximum coverage"), form.get("maximumCoverage", ""), problems, type="number")}
<p><button type="submit">${_("Create project")}</button></p>
</form>
</section>
% endif

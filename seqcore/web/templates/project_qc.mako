<%inherit file="layout.mako"/>
<%namespace name="tables" file="table.mako"/>
<%def name="title()">${_("QC of ${name}", name=project.name)}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li><a href="${request.route_path('web.project', id=project.id)}">${project.namespace}/${project.path}</a></li>
<li aria-current="page">${_("QC overview")}</li>
</ol></nav>
</%def>
<h1>${_("QC of ${name}", name=project.name)}</h1>
<dl class="facts">
<dt>${_("Genome size")}</dt><dd id="genome-size">${project.genome_size if project.genome_size else _("Not set")}</dd>
<dt>${_("Minimum coverage")}</dt><dd>${project.minimum_coverage if project.minimum_coverage is not None else _("Not set")}</dd>
<dt>${_("Maximum coverage")}</dt><dd>${project.maximum_coverage if project.maximum_coverage is not None else _("Not set")}</dd>
</dl>
% if not project.genome_size:
<p class="muted" id="no-genome-size">${_("The project has no genome size: coverage (bases divided by the genome size) cannot be computed.")}</p>
% elif chart is not None:
<figure class="chart-figure">${chart | n}</figure>
% endif
${tables.render(table)}

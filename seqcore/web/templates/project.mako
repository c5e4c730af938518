<%inherit file="layout.mako"/>
<%namespace name="tables" file="table.mako"/>
<%namespace name="uploads" file="uploads.mako"/>
<%def name="title()">${project.name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li aria-current="page">${project.namespace}/${project.path}</li>
</ol></nav>
</%def>
<h1>${project.name}</h1>
<dl class="facts">
<dt>${_("Identifier")}</dt><dd><code>${project.puid}</code></dd>
% if project.organism:
<dt>${_("Organism")}</dt><dd>${project.organism}</dd>
% endif
% if project.genome_size:
<dt>${_("Genome size")}</dt><dd>${project.genome_size}</dd>
% endif
% if project.description:
<dt>${_("Description")}</dt><dd>${project.description}</dd>
% endif
</dl>
% if sync is not None:
<section id="sync" aria-labelledby="sync-heading">
<h2 id="sync-heading">${_("Synchronized project")}</h2>
<p>${_("This project mirrors a project of another install: its samples, metadata and files are read-only here and change when it is synchronized.")}</p>
<dl class="facts">
<dt>${_("Remote project")}</dt><dd><code>${sync["remoteURL"]}</code>${" (" + sync["remoteApi"]["name"] + ")" if sync["remoteApi"]["name"] else ""}</dd>
<dt>${_("State")}</dt><dd id="sync-status">${_(sync["status_label"])}${" " + _("(running now)") if sync["running"] else ""}</dd>
% if sync["error"]:
<dt>${_("Reason")}</dt><dd id="sync-error">${sync["error"]}</dd>
% endif
<dt>${_("Last synchronized")}</dt><dd>${sync["last"].strftime("%Y-%m-%d %H:%M UTC") if sync["last"] else _("never")}</dd>
<dt>${_("Next synchronization")}</dt><dd>${sync["next"].strftime("%Y-%m-%d %H:%M UTC") if sync["next"] else _("when asked")}</dd>
</dl>
% if sync["can_sync"]:
<form method="post" action="${sync['action']}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" id="sync-now">${_("Sync now")}</button>
</form>
% endif
</section>
% endif
<p><a href="${request.route_path('web.project.manage', id=project.id)}">${_("Members, metadata fields, templates and activity")}</a></p>
<p><a id="project-qc" href="${request.route_path('web.project.qc', id=project.id)}">${_("QC overview of the samples")}</a></p>
<h2>${_("Samples")}</h2>
% if can_import:
<p><a id="import-samples" href="${request.route_path('web.project.import', id=project.id)}">${_("Import samples and metadata from a spreadsheet")}</a></p>
% endif
<details>
<summary>${_("Columns")}</summary>
<form method="get" class="table-tools">
<fieldset><legend>${_("Metadata columns")}</legend>
% for name in fields:
<span><input type="checkbox" id="column-${loop.index}" name="column" value="${name}"${' checked' if name in columns and chosen_template is None else '' | n}>
<label for="column-${loop.index}">${name}</label></span>
% endfor
</fieldset>
<button type="submit">${_("Show these columns")}</button>
</form>
% if templates:
<form method="get" class="table-tools">
<div class="field"><label for="template">${_("Metadata template")}</label>
<select id="template" name="template">
% for t in templates:
<option value="${t.id}"${' selected' if chosen_template is not None and chosen_template.id == t.id else '' | n}>${t.name}</option>
% endfor
</select></div>
<div class="field"><button type="submit">${_("Use template")}</button></div>
</form>
% endif
</details>
${tables.render(table)}
% if upload is not None:
${uploads.area(upload, outcomes, _("Add samples from FASTQ files"), _("Each file goes to the sample named before its read number (ecoli_S1_L001_R1_001.fastq.gz: sample ecoli), made if the project has none; two files whose names differ in R1 and R2 (or 1 and 2) are a pair, any other file is single-end."))}
% endif

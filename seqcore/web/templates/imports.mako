<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%def name="title()">${_("Import samples and metadata")} ${project.name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.projects')}">${_("Projects")}</a></li>
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a></li>
<li aria-current="page">${_("Import samples and metadata")}</li>
</ol></nav>
</%def>
<%def name="column_field(name, label, value, hint, optional=False)">
<% problem = problems.get(name) %>
<div class="field">
<label for="field-${name}">${label} <span class="hint">${hint}</span></label>
% if header:
<select id="field-${name}" name="${name}"${(' aria-invalid="true" aria-describedby="problem-%s"' % name) if problem else '' | n}>
% if optional:
<option value=""${' selected' if not value else '' | n}>${_("(none)")}</option>
% endif
% if value and value not in header:
<option value="${value}" selected>${value}</option>
% endif
% for column in header:
% if column:
<option value="${column}"${' selected' if column == value else '' | n}>${column}</option>
% endif
% endfor
</select>
% else:
<input id="field-${name}" name="${name}" value="${value}"${(' aria-invalid="true" aria-describedby="problem-%s"' % name) if problem else '' | n}>
% endif
% if problem:
<span class="problem" id="problem-${name}">${problem}</span>
% endif
</div>
</%def>
<%def name="options()">
${column_field("sample_column", _("Sample column"), form["sample_column"], _("(each sample's name, or the PUID of a sample of the project)"))}
${column_field("description_column", _("Description column"), form["description_column"], _("(optional: a new sample's description)"), optional=True)}
<fieldset id="field-mode"><legend>${_("If a row has a problem")}</legend>
% for value, label in modes:
<span><input type="radio" id="mode-${value}" name="mode" value="${value}"${' checked' if form["mode"] == value else '' | n}>
<label for="mode-${value}">${_(label)}</label></span>
% endfor
</fieldset>
<fieldset><legend>${_("Options")}</legend>
<span><input type="checkbox" id="field-create" name="create" value="1"${' checked' if form["create"] else '' | n}>
<label for="field-create">${_("Create the samples the project does not hold (unticked: only update the metadata of existing samples)")}</label></span>
<span><input type="checkbox" id="field-ignore_empty" name="ignore_empty" value="1"${' checked' if form["ignore_empty"] else '' | n}>
<label for="field-ignore_empty">${_("Skip empty cells (unticked: an empty cell deletes the field)")}</label></span>
</fieldset>
</%def>
<%def name="names_list(heading_id, heading, names)">
% if names:
<h3 id="${heading_id}">${heading}</h3>
<p>${", ".join(names[:shown])}${" …" if len(names) > shown else ""}</p>
% endif
</%def>
<h1>${_("Import samples and metadata")}</h1>
<p>${_("Import samples and their metadata from a spreadsheet (CSV, TSV or XLSX: its first worksheet). The first row names the columns: one names the samples, an optional one holds a new sample's description, and every other column is a metadata field. A row naming a sample of the project updates its metadata; a row naming none creates the sample. Check the sheet first: nothing is written until you import.")}</p>
% if error:
<div role="alert" class="error"><p>${_("The file cannot be imported:")} ${error}</p></div>
% endif
${forms.problems_summary(problems, _("The sheet cannot be imported with these columns:"))}
% if report is not None:
<section aria-labelledby="report-heading" class="${'error' if refused else 'notice'}"${' role="alert"' if refused else ' role="status"' | n}>
% if report.dry_run:
<h2 id="report-heading">${_("Check of the sheet: nothing was written")}</h2>
<p>${_("${rows} rows read: ${created} samples would be created and ${updated} updated; ${problems} problems.", **counts)}</p>
% if report.problems and report.mode == "all":
<p>${_("As all or nothing, this sheet would be refused: fix the problems, or import per row to import the valid rows only.")}</p>
% endif
% elif refused:
<h2 id="report-heading">${_("Nothing was imported")}</h2>
<p>${_("The sheet has ${problems} problems (on ${refused_rows} rows); as all or nothing, no row was imported.", **counts)}</p>
% else:
<h2 id="report-heading">${_("Import done")}</h2>
<p>${_("${rows} rows read: ${created} samples created and ${updated} updated; ${refused_rows} rows refused.", **counts)}</p>
% endif
</section>
% if report.problems:
<h3 id="problems-heading">${_("Rows refused") if not report.dry_run and not refused else _("Problems")}</h3>
<div class="table-wrap"><table id="import-problems" aria-labelledby="problems-heading">
<thead><tr><th scope="col">${_("Row")}</th><th scope="col">${_("Column")}</th><th scope="col">${_("Problem")}</th></tr></thead>
<tbody>
% for problem in report.problems[:shown]:
<tr><td>${problem.row}</td><td>${problem.column or "—"}</td><td>${problem.message}</td></tr>
% endfor
</tbody></table></div>
% if len(report.problems) > shown:
<p>${_("The first ${shown} problems are listed.", shown=shown)}</p>
% endif
% endif
% if report.dry_run:
${names_list("created-heading", _("Samples that would be created"), report.created)}
${names_list("updated-heading", _("Samples that would be updated"), report.updated)}
% elif not refused:
${names_list("created-heading", _("Samples created"), report.created)}
${names_list("updated-heading", _("Samples updated"), report.updated)}
<p><a href="${request.route_path('web.project', id=project.id)}">${_("Back to the project's samples")}</a></p>
% endif
% endif
% if sheet_data:
<h2 id="again-heading">${_("Import this sheet")} <span class="hint">${sheet_name}</span></h2>
<form method="post" id="import-again" data-turbo="false" action="${request.route_path('web.project.import', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="hidden" name="sheet_data" value="${sheet_data}">
<input type="hidden" name="sheet_name" value="${sheet_name}">
${options()}
<p><button type="submit" name="step" value="import">${_("Import")}</button>
<button type="submit" name="step" value="check" class="secondary">${_("Check again")}</button>
<a href="${request.route_path('web.project', id=project.id)}">${_("Cancel")}</a></p>
</form>
<h2 id="other-heading">${_("Another file")}</h2>
% endif
<form method="post" id="import-sheet" enctype="multipart/form-data" data-turbo="false" action="${request.route_path('web.project.import', id=project.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="field-sheet">${_("Spreadsheet")} <span class="hint">${_("(.csv, .tsv or .xlsx)")}</span></label>
<input type="file" id="field-sheet" name="sheet" accept=".csv,.tsv,.txt,.xlsx,text/csv,text/tab-separated-values,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" required></div>
% if not sheet_data:
${options()}
% else:
<input type="hidden" name="sample_column" value="${form['sample_column']}">
<input type="hidden" name="description_column" value="${form['description_column']}">
<input type="hidden" name="mode" value="${form['mode']}">
% if form["create"]:
<input type="hidden" name="create" value="1">
% endif
% if form["ignore_empty"]:
<input type="hidden" name="ignore_empty" value="1">
% endif
% endif
<p><button type="submit" name="step" value="check">${_("Check the sheet (dry run)")}</button>
<button type="submit" name="step" value="import" class="secondary">${_("Import")}</button>
<a href="${request.route_path('web.project', id=project.id)}">${_("Cancel")}</a></p>
</form>

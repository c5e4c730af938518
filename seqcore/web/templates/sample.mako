<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%namespace name="uploads" file="uploads.mako"/>
<%def name="title()">${sample.name}</%def>
<h1>${sample.name}</h1>
<dl class="facts">
<dt>${_("Identifier")}</dt><dd><code>${sample.puid}</code></dd>
<dt>${_("Created")}</dt><dd>${fmt.when(sample.created)}</dd>
<dt>${_("Projects")}</dt><dd>
% for project in projects:
<a href="${request.route_path('web.project', id=project.id)}">${project.name}</a>${"" if loop.last else ","}
% endfor
</dd>
</dl>
<h2 id="metadata">${_("Metadata")}</h2>
% if entries:
<div class="table-wrap"><table aria-labelledby="metadata">
<thead><tr><th scope="col">${_("Field")}</th><th scope="col">${_("Value")}</th>
<th scope="col">${_("Source")}</th></tr></thead>
<tbody>
% for entry in entries:
<% source = provenance[entry.id] %>
<tr><td>${entry.field}</td><td>${entry.value}</td>
<td>\
% if source and source["source"] == "analysis":
<a href="${request.route_path('web.analysis', id=source['id'])}">${_("Analysis ${id}", id=source["id"])}</a>\
% elif source:
${_("NCBI submission ${id}", id=source["id"])}\
% else:
${_("Entered")}\
% endif
</td></tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("No metadata.")}</p>
% endif
<h2 id="files">${_("Files")}</h2>
% if upload is not None:
${uploads.area(upload, outcomes, _("Add files to this sample"), _("A pair is two files whose names differ in R1 and R2 (or 1 and 2); any other file is single-end."))}
% endif
## Refreshed in place (the frame's own source is this page) while the worker has files to
## check, and again after an upload from this page.
<turbo-frame id="sample-files" target="_top" data-controller="pending" data-action="upload:stored@window->pending#watch">
<div aria-live="polite"${' data-pending="true"' if pending else '' | n}>
% if objects:
<div class="table-wrap"><table aria-labelledby="files">
<thead><tr><th scope="col">${_("Kind")}</th><th scope="col">${_("Files")}</th>
<th scope="col">${_("Processing")}</th><th scope="col">${_("QC")}</th></tr></thead>
<tbody>
% for obj in objects:
<tr><td>${obj.kind}</td><td>
% for file in obj.files:
% if qc_pages:
<a href="${request.route_path('web.qc.file', id=file.id)}">${file.file_name}</a>
% else:
${file.file_name}
% endif
<br>
% endfor
</td><td>${fmt.state(obj.processing_state)}</td><td>
% for file in obj.files:
<% summary = qc.get(file.id) %>
% if summary and summary["worst"]:
<span class="qc-summary" data-file="${file.id}">${fmt.verdict(summary["worst"].value)} \
% if qc_pages:
<a href="${request.route_path('web.qc.file', id=file.id)}">${_("${passed} passed, ${warned} warned, ${failed} failed", passed=summary["counts"]["pass"], warned=summary["counts"]["warn"], failed=summary["counts"]["fail"])}</a>\
% else:
${_("${passed} passed, ${warned} warned, ${failed} failed", passed=summary["counts"]["pass"], warned=summary["counts"]["warn"], failed=summary["counts"]["fail"])}\
% endif
</span>
% else:
<span class="muted">${_("No QC yet")}</span>
% endif
<br>
% endfor
</td></tr>
% endfor
</tbody></table></div>
% for obj in objects:
% if views.get(obj.id) is not None:
<section class="kind-view" data-object="${obj.id}" aria-label="${obj.kind} ${obj.id}">
${views[obj.id] | n}
</section>
% endif
% endfor
% else:
<p class="muted">${_("No files yet.")}</p>
% endif
</div>
</turbo-frame>
<h2 id="analyses">${_("Analyses")}</h2>
% if analyses:
<ul>
% for analysis in analyses:
<li><a href="${request.route_path('web.analysis', id=analysis.id)}">${analysis.name}</a> ${fmt.state(analysis.state)}</li>
% endfor
</ul>
% else:
<p class="muted">${_("No analysis has used this sample.")}</p>
% endif
<h2 id="history">${_("History")}</h2>
% if history:
<ul>
% for entry in history:
<li>${fmt.when(entry["created"])}: ${fmt.activity(entry)}
% if entry["changes"]:
<ul>
% for change in entry["changes"]:
% if change.get("field"):
<li><code>${change["field"]}</code>: ${change.get("action", "")} ${change.get("values", "")}</li>
% endif
% endfor
</ul>
% endif
</li>
% endfor
</ul>
% else:
<p class="muted">${_("Nothing recorded yet.")}</p>
% endif

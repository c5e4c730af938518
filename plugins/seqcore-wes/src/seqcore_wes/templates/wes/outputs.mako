## A workflow execution's iridanext.output.json.gz: its files and its metadata by sample.
<h3 id="wes-files-${output.id}">${_("Files of the run")}</h3>
% if files:
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="wes-files-${output.id}"><table class="wes-files" aria-labelledby="wes-files-${output.id}">
<thead><tr><th scope="col">${_("Sample")}</th><th scope="col">${_("File")}</th></tr></thead>
<tbody>
% for row in files:
<tr><td>${_("All samples") if row["sample"] is None else row["sample"]}</td>
<td>\
% if row["output"] is not None:
<a href="${download_path(row['output'])}" download>${row["path"]}</a>\
% else:
${row["path"]}\
% endif
</td></tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("The run reported no files.")}</p>
% endif
<h3 id="wes-metadata-${output.id}">${_("Metadata by sample")}</h3>
% if metadata:
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="wes-metadata-${output.id}"><table class="wes-metadata" aria-labelledby="wes-metadata-${output.id}">
<thead><tr><th scope="col">${_("Sample")}</th>
% for field in fields:
<th scope="col">${field}</th>
% endfor
</tr></thead>
<tbody>
% for sample, values in metadata.items():
<tr><th scope="row">${sample}</th>
% for field in fields:
<td data-field="${field}">${values.get(field, "")}</td>
% endfor
</tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("The run reported no metadata.")}</p>
% endif
<p><a href="${download_path(output)}" download>${_("The run's manifest (iridanext.output.json.gz)")}</a>\
% if samplesheet is not None:
 · <a href="${download_path(samplesheet)}" download>${_("The samplesheet it was given")}</a>\
% endif
</p>

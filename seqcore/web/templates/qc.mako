<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%! from seqcore.web.labels import QC_MODULES %>
<%def name="title()">${_("QC of ${name}", name=file.file_name)}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.sample', id=sample.id)}">${sample.name}</a></li>
<li aria-current="page">${_("QC of ${name}", name=file.file_name)}</li>
</ol></nav>
</%def>
<h1>${_("QC of ${name}", name=file.file_name)}</h1>
% if report is None:
<p class="muted">${_("This file has no QC report yet: it is made once the file has been processed.")}</p>
% else:
<dl class="facts">
<dt>${_("Verdict")}</dt><dd id="qc-worst">${fmt.verdict(worst)}</dd>
<dt>${_("Reads")}</dt><dd>${report.total_sequences}</dd>
<dt>${_("Bases")}</dt><dd>${report.total_bases}</dd>
<dt>${_("Read length")}</dt><dd>${length_words}</dd>
<dt>${_("GC content")}</dt><dd>${report.gc_content} %</dd>
<dt>${_("Encoding")}</dt><dd>${report.encoding}</dd>
<dt>${_("Made by")}</dt><dd>${record.engine}, ${fmt.when(record.created)}</dd>
</dl>
<h2 id="qc-modules">${_("Modules")}</h2>
<div class="table-wrap"><table aria-labelledby="qc-modules" id="qc-verdicts">
<thead><tr><th scope="col">${_("Module")}</th><th scope="col">${_("Verdict")}</th></tr></thead>
<tbody>
% for index, item in enumerate(verdicts):
<tr data-module="${item.module}"><td><a href="#module-${index}">${_(QC_MODULES[item.module])}</a></td>
<td>\
% if item.verdict is None:
<span class="muted">${_("Not measured")}</span>\
% else:
${fmt.verdict(item.verdict.value)}\
% endif
</td></tr>
% endfor
</tbody></table></div>
% for index, item in enumerate(verdicts):
<section class="qc-module" aria-labelledby="module-${index}" data-module="${item.module}">
<h2 id="module-${index}">${_(QC_MODULES[item.module])} \
% if item.verdict is not None:
${fmt.verdict(item.verdict.value)}\
% endif
</h2>
% if item.verdict is None and item.module == "Per tile sequence quality":
<p class="muted">${_("Not measured: the reads' names carry no Illumina tile number (FastQC leaves this module out too), or the QC record was made before tiles were measured.")}</p>
% elif item.verdict is None:
<p class="muted">${_("Not measured: the QC record of this file holds no numbers for this module.")}</p>
% elif item.module in plots:
% if item.module == "Sequence Length Distribution":
<p>${length_words}</p>
% endif
<figure class="chart-figure">${plots[item.module] | n}</figure>
% if item.module == "Sequence Duplication Levels":
<p id="deduplicated">${_("Percent of sequences remaining if deduplicated: ${percentage} %", percentage="%.2f" % report.duplication.deduplicated_percentage)}</p>
% endif
% elif item.module == "Adapter Content":
<p>${_("No read is longer than the adapters (12 bases): adapters cannot be searched for.")}</p>
% elif item.module == "Sequence Length Distribution":
<p>${length_words}</p>
% elif item.module == "Overrepresented sequences":
% if report.overrepresented_sequences:
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="module-${index}"><table aria-labelledby="module-${index}" id="overrepresented">
<thead><tr><th scope="col">${_("Sequence")}</th><th scope="col" class="number">${_("Count")}</th>
<th scope="col" class="number">${_("Percentage")}</th><th scope="col">${_("Possible source")}</th></tr></thead>
<tbody>
% for row in report.overrepresented_sequences:
<tr><td><code>${row.sequence}</code></td><td class="number">${row.count}</td>
<td class="number">${"%.3f" % row.percentage}</td><td>${row.possible_source}</td></tr>
% endfor
</tbody></table></div>
% else:
<p>${_("No sequence makes up more than one read in a thousand.")}</p>
% endif
% elif item.module == "Basic Statistics":
<p>${_("Reads, bases, lengths, GC content and encoding are listed above.")}</p>
% endif
</section>
% endfor
% endif

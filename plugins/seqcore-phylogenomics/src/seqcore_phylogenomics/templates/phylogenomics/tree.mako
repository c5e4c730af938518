## The phylogenomics analysis's tree, with the SNV matrix and the filter statistics.
<h3 id="tree-${output.id}">${_("Phylogenetic tree")}</h3>
<form method="get" class="tree-tools" action="${request.path}">
<div class="field"><label for="tree-colour-${output.id}">${_("Colour tips by")}</label>
<select id="tree-colour-${output.id}" name="colour">
<option value="">${_("nothing")}</option>
% for name in fields:
<option value="${name}"${' selected' if name == chosen else '' | n}>${name}</option>
% endfor
</select></div>
<button type="submit" class="secondary">${_("Show")}</button>
</form>
<div data-controller="tree">
<div class="tree-tools" data-tree-target="tools" hidden>
<button type="button" class="secondary" data-action="tree#zoomIn">${_("Zoom in")}</button>
<button type="button" class="secondary" data-action="tree#zoomOut">${_("Zoom out")}</button>
<button type="button" class="secondary" data-action="tree#reset">${_("Fit")}</button>
<button type="button" class="secondary" data-action="tree#expandAll">${_("Expand all clades")}</button>
<div class="field"><label for="tree-search-${output.id}">${_("Find tips")}</label>
<input id="tree-search-${output.id}" type="search" data-tree-target="query" data-action="input->tree#search"></div>
<span role="status" data-tree-target="status" data-template="${_('{count} matching tips')}"></span>
</div>
<p class="muted" data-tree-target="tools" hidden>${_("Click a clade's node to collapse it into a wedge, and again to expand it.")}</p>
<div class="tree-view" id="tree-view-${output.id}" tabindex="0" role="region" aria-labelledby="tree-${output.id}">${drawing | n}</div>
</div>
<p class="muted">${_("${count} tips.", count=tips)}</p>
% if matrix:
<h3 id="matrix-${output.id}">${_("SNV distance matrix")}</h3>
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="matrix-${output.id}"><table aria-labelledby="matrix-${output.id}" class="snv-matrix">
<thead><tr><th scope="col">${_("Isolate")}</th>
% for name in matrix[0][1:]:
% if name:
<th scope="col" class="number">${name}</th>
% endif
% endfor
</tr></thead>
<tbody>
% for row in matrix[1:]:
<tr><th scope="row">${row[0]}</th>
% for index, value in enumerate(row[1:]):
% if matrix[0][index + 1]:
<td class="number">${value}</td>
% endif
% endfor
</tr>
% endfor
</tbody></table></div>
% endif
% if filter_stats:
<h3 id="filter-stats-${output.id}">${_("Filter statistics")}</h3>
<pre class="filter-stats" aria-labelledby="filter-stats-${output.id}">${filter_stats}</pre>
% endif

## An assembly's contigs: statistics, the length/coverage plot, the longest contigs.
<h3 id="contigs-${output.id}">${_("Contigs")}</h3>
<dl class="facts contig-stats">
<dt>${_("Contigs")}</dt><dd data-stat="count">${"{:,}".format(count)}</dd>
<dt>${_("Bases")}</dt><dd data-stat="total">${"{:,}".format(total)}</dd>
<dt>N50</dt><dd data-stat="n50">${"{:,}".format(n50)} (${in_n50})</dd>
<dt>${_("Longest contig")}</dt><dd data-stat="longest">${"{:,}".format(longest)}</dd>
% if gc is not None:
<dt>${_("GC content")}</dt><dd data-stat="gc">${"%.1f" % gc} %</dd>
% endif
% if average is not None:
<dt>${_("Mean coverage")}</dt><dd data-stat="average">${"%.1f" % average}</dd>
% endif
</dl>
% if plot:
<figure class="chart-figure">${plot | n}</figure>
% endif
% if rows:
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="contigs-${output.id}"><table aria-labelledby="contigs-${output.id}" class="contigs">
<caption>${_("The ${count} longest contigs", count=shown)}</caption>
<thead><tr><th scope="col">${_("Contig")}</th><th scope="col" class="number">${_("Length")}</th>
<th scope="col" class="number">${_("Coverage")}</th><th scope="col" class="number">${_("Copies")}</th></tr></thead>
<tbody>
% for row in rows:
<tr><td><code>${row["name"]}</code></td><td class="number">${"{:,}".format(row["length"])}</td>
<td class="number">${"-" if row["coverage"] is None else "%.1f" % row["coverage"]}</td>
<td class="number">${"-" if row["copies"] is None else row["copies"]}</td></tr>
% endfor
</tbody></table></div>
% endif

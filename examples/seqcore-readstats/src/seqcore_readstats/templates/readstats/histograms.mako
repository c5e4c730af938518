## The readstats analysis's histograms: the core's table of samples, then a chart per sample.
<%namespace name="tables" file="/table.mako"/>
<link rel="stylesheet" href="${plugin_static('readstats', 'readstats.css')}">
<h3 id="readstats-${output.id}">${_("Read lengths")}</h3>
<p class="readstats-summary">${_("${reads} reads; bins of ${width} bases.", reads="{:,}".format(reads), width=bin_width)}</p>
${tables.render(table)}
<div class="readstats-charts">
% for sample_id, chart in charts:
<figure class="chart-figure">${chart | n}</figure>
% endfor
</div>

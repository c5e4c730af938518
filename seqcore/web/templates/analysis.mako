<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%def name="title()">${submission.name}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.analyses')}">${_("Analyses")}</a></li>
<li aria-current="page">${submission.name}</li>
</ol></nav>
</%def>
<h1>${submission.name}</h1>
<turbo-frame id="analysis-state"
% if not finished:
 data-controller="refresh" data-refresh-interval-value="3000"
% endif
>
<dl class="facts">
<dt>${_("Type")}</dt><dd>${submission.analysis_type}</dd>
<dt>${_("State")}</dt><dd id="analysis-state-value">${fmt.state(submission.state)}</dd>
<dt>${_("Created")}</dt><dd>${fmt.when(submission.created)}</dd>
% if submission.error:
<dt>${_("Error")}</dt><dd class="error">${submission.error}</dd>
% endif
</dl>
<h2>${_("State history")}</h2>
<ol>
% for state, millis in submission.history or []:
<li>${fmt.state(state)} <span class="muted">${fmt.instant(millis)}</span></li>
% endfor
</ol>
<h2 id="analysis-log-heading">${_("Log")}</h2>
% if log is None:
<p class="muted" id="analysis-log-missing">${_("No log is kept for this analysis.") if finished else _("No log yet.")}</p>
% elif not log.lines:
<p class="muted" id="analysis-log-missing">${_("The log is empty.")}</p>
% else:
<p class="muted">${_("The last ${count} lines of the log; earlier lines are left out.", count=len(log.lines)) if log.truncated else _("The whole log.")}</p>
<pre class="log" id="analysis-log" tabindex="0" role="region" aria-labelledby="analysis-log-heading">${"\n".join(log.lines)}</pre>
% endif
<h2 id="analysis-outputs-heading">${_("Outputs")}</h2>
% if outputs:
<% plain = [shown for shown in outputs if shown.html is None] %>
% if plain:
<ul id="analysis-outputs">
% for shown in plain:
<li><code>${shown.key}</code>: <a href="${request.route_path('web.analysis.output', id=submission.id, output=shown.output.id)}" download>${shown.output.file.file_name}</a></li>
% endfor
</ul>
% endif
% for shown in outputs:
% if shown.html is not None:
<section class="output-view" data-output="${shown.key}" aria-label="${shown.key}">
${shown.html | n}
</section>
% endif
% endfor
% else:
<p class="muted">${_("No outputs yet.")}</p>
% endif
</turbo-frame>
<h2>${_("Parameters")}</h2>
% if submission.parameters:
<dl class="facts">
% for key, value in sorted(submission.parameters.items()):
<dt>${key}</dt><dd>${value}</dd>
% endfor
</dl>
% else:
<p class="muted">${_("Defaults.")}</p>
% endif
<h2>${_("Inputs")}</h2>
<ul>
% for item in submission.inputs:
<li>${_("Sequencing object ${id}", id=item.object_id)}</li>
% endfor
</ul>

<%inherit file="layout.mako"/>
<%namespace name="fmt" file="formats.mako"/>
<%def name="title()">${_("Activity")}</%def>
<h1>${_("Activity")}</h1>
<p>${_("What happened in the projects you may read, newest first.")}</p>
% if entries:
<div class="table-wrap"><table>
<caption class="visually-hidden">${_("Activity")}</caption>
<thead><tr><th scope="col">${_("When")}</th><th scope="col">${_("What")}</th>
<th scope="col">${_("Project")}</th></tr></thead>
<tbody>
% for entry in entries:
<tr><td>${fmt.when(entry["created"])}</td><td>${fmt.activity(entry)}</td>
<td>\
% if entry["projectId"] in names:
<a href="${request.route_path('web.project', id=entry['projectId'])}">${names[entry["projectId"]]}</a>\
% endif
</td></tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("No activity yet.")}</p>
% endif
% if cursor is not None or not first:
<nav class="pager" aria-label="${_('Pages')}">
% if not first:
<a href="${request.route_path('web.activity')}">${_("Newest")}</a>
% endif
% if cursor is not None:
<a href="${request.route_path('web.activity', _query={'before': cursor})}" rel="next">${_("Older")}</a>
% endif
</nav>
% endif

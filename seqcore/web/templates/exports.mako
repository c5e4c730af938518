<%inherit file="layout.mako"/>
<%namespace name="tables" file="table.mako"/>
<%def name="title()">${_("Data exports")}</%def>
<h1>${_("Data exports")}</h1>
<p>${_("Bundles of samples, their files and line list, and analysis outputs, made from a project's samples table (\"Export data\") or through the APIs. A bundle can be downloaded once it is ready, until it expires.")}</p>
## While an export is being prepared, the frame reloads itself every few seconds (Turbo);
## without JavaScript, reloading the page shows the same.
<turbo-frame id="exports-list" target="_top"
% if preparing:
 data-controller="refresh" data-refresh-interval-value="5000"
% endif
>
${tables.render(table)}
</turbo-frame>

<%inherit file="layout.mako"/>
<%namespace name="tables" file="table.mako"/>
<%def name="title()">${_("Analyses")}</%def>
<h1>${_("Analyses")}</h1>
## While something runs, the frame reloads itself every few seconds (Turbo); without
## JavaScript, reloading the page shows the same.
<turbo-frame id="analyses-list" target="_top"
% if running:
 data-controller="refresh" data-refresh-interval-value="5000"
% endif
>
${tables.render(table)}
</turbo-frame>

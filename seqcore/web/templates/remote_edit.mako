<%inherit file="layout.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%namespace name="remote_form" file="remote_form.mako"/>
<%def name="title()">${remote.name}</%def>
<p><a href="${request.route_path('web.admin.remotes')}">${_("Remote API register")}</a></p>
<h1>${remote.name}</h1>
<p>${_("Redirect URI to register there")}: <code>${callback}</code></p>
${forms.problems_summary(problems, _("The remote API was not changed:"))}
<form method="post" action="${request.route_path('web.admin.remote', id=remote.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
${remote_form.fields(form, problems, kinds, editing=True)}
<p><button type="submit">${_("Save")}</button></p>
</form>

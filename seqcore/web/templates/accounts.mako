<%inherit file="layout.mako"/>
<%namespace name="tables" file="table.mako"/>
<%namespace name="forms" file="forms.mako"/>
<%def name="title()">${_("Accounts")}</%def>
<h1>${_("Accounts")}</h1>
<p>${_("Every account of this seqcore. A disabled account can no longer sign in or use its tokens; what it made keeps the record of who made it.")}</p>
${tables.render(table)}
<section aria-labelledby="new-account">
<h2 id="new-account">${_("New account")}</h2>
${forms.problems_summary(problems, _("The account was not created:"))}
<form method="post" action="${request.route_path('web.admin.accounts')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
${forms.field("username", _("Account name"), form.get("username", ""), problems, required=True)}
${forms.field("email", _("E-mail"), form.get("email", ""), problems, type="email", required=True)}
${forms.field("firstName", _("First name"), form.get("firstName", ""), problems, required=True)}
${forms.field("lastName", _("Last name"), form.get("lastName", ""), problems, required=True)}
${forms.field("phoneNumber", _("Phone number"), form.get("phoneNumber", ""), problems, required=True)}
${forms.field("password", _("Password"), "", problems, type="password", required=True, hint=_("(at least 8 characters, with upper and lower case letters, a digit and a special character)"))}
<div class="field"><label for="field-systemRole">${_("System role")}</label>
<select id="field-systemRole" name="systemRole">
% for value, label in roles.items():
<option value="${value}"${' selected' if form.get('systemRole', 'ROLE_USER') == value else '' | n}>${_(label)}</option>
% endfor
</select></div>
<p><button type="submit">${_("Create account")}</button></p>
</form>
</section>

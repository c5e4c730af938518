## The fields of a remote API, for registering one and for changing one.
<%namespace name="forms" file="forms.mako"/>
<%def name="fields(form, problems, kinds, editing=False)">
${forms.field("name", _("Name"), form.get("name", ""), problems, required=True)}
${forms.field("base_url", _("Base URL"), form.get("base_url", ""), problems, type="url", required=True, hint=_("(the install's address, e.g. https://irida.example.org)"))}
<div class="field"><label for="field-kind">${_("Kind")}</label>
<select id="field-kind" name="kind">
% for kind in kinds:
<option value="${kind}"${' selected' if form.get('kind') == kind else '' | n}>${"IRIDA Next (GraphQL)" if kind == "irida-next" else "IRIDA (REST)"}</option>
% endfor
</select>
% if problems.get("kind"):
<span class="problem" id="problem-kind">${problems["kind"]}</span>
% endif
</div>
${forms.field("graphql_url", _("GraphQL endpoint"), form.get("graphql_url", ""), problems, type="url", hint=_("(IRIDA Next only)"))}
${forms.field("client_id", _("Client id"), form.get("client_id", ""), problems, required=True, hint=_("(this install's OAuth2 client there)"))}
${forms.field("client_secret", _("Client secret"), "", problems, type="password", required=not editing, hint=_("(leave empty to keep the current one)") if editing else None)}
<div class="field"><label for="field-description">${_("Description")}</label>
<textarea id="field-description" name="description" rows="2">${form.get("description", "")}</textarea></div>
</%def>

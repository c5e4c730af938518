<%inherit file="layout.mako"/>
<%! from markupsafe import escape %>
<%def name="title()">${_("Launch an analysis")}</%def>
<%def name="breadcrumbs()">
<nav class="breadcrumbs" aria-label="${_('Breadcrumbs')}"><ol>
<li><a href="${request.route_path('web.project', id=project.id)}">${project.name}</a></li>
<li aria-current="page">${_("Launch an analysis")}</li>
</ol></nav>
</%def>
<h1>${_("Launch an analysis")}</h1>
<p>${_("${count} samples selected.", count=len(ids))}</p>
% if problems:
<div role="alert" class="error">
<p>${_("The analysis was not launched:")}</p>
<ul>
% for key, message in problems.items():
<li>${key}: ${message}</li>
% endfor
</ul>
</div>
% endif
<form method="post" action="${request.route_path('web.analyses.new', _query={'project': project.id})}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
% for sample_id in ids:
<input type="hidden" name="selected" value="${sample_id}">
% endfor
<fieldset><legend>${_("Analysis type")}</legend>
% for t in types:
<p><input type="radio" id="type-${t.name}" name="analysis_type" value="${t.name}"${' checked' if chosen is not None and chosen.name == t.name else '' | n}>
<label for="type-${t.name}">${t.label}</label> <span class="muted">${t.name}</span>\
% if t.description:
<br><span class="hint">${t.description}</span>\
% endif
</p>
% endfor
</fieldset>
% if chosen is None:
<p><button type="submit">${_("Choose")}</button></p>
% else:
<input type="hidden" name="launch" value="1">
<div class="field"><label for="name">${_("Name")} <span class="hint">${_("(optional)")}</span></label>
<input id="name" name="name" value="${name}"></div>
<%
    shown = [p for p in chosen.parameters if not p.hidden]
    groups = []
    for p in shown:
        if not groups or groups[-1][0] != p.group:
            groups.append((p.group, []))
        groups[-1][1].append(p)
    tucked = [p for p in chosen.parameters if p.hidden]
%>
% for group, members in groups:
% if group:
<fieldset><legend>${group}</legend>
% endif
% for p in members:
${field(p)}
% endfor
% if group:
</fieldset>
% endif
% endfor
% if tucked:
## Open when one of them was given or refused, so nothing sent is out of sight.
<details${' open' if any(values.get(p.name) or problems.get("parameters." + p.name) for p in tucked) else '' | n}><summary>${_("More parameters")}</summary>
% for p in tucked:
${field(p)}
% endfor
</details>
% endif
% if chosen.writes_back:
<p><input type="checkbox" id="write_back" name="write_back"><label for="write_back">${_("Write the results back to the samples")}</label></p>
% endif
<p><button type="submit">${_("Launch")}</button></p>
% endif
</form>
<%def name="field(p)">
<% field_id = "parameter-" + p.name; problem = problems.get("parameters." + p.name) %>
<div class="field"><label for="${field_id}">${p.name}\
% if p.description:
 <span class="hint">${p.description}</span>\
% endif
</label>
% if p.choices:
<select id="${field_id}" name="parameter.${p.name}">
% for choice, label in zip(p.choices, p.choice_labels or p.choices):
<option value="${choice}"${' selected' if str(values.get(p.name) or p.default) == choice else '' | n}>${label}</option>
% endfor
</select>
% elif p.type == "bool":
<select id="${field_id}" name="parameter.${p.name}">
<option value="true"${' selected' if str(values.get(p.name) or p.default).lower() == 'true' else '' | n}>${_("Yes")}</option>
<option value="false"${' selected' if str(values.get(p.name) or p.default).lower() != 'true' else '' | n}>${_("No")}</option>
</select>
% else:
<input id="${field_id}" name="parameter.${p.name}" value="${values.get(p.name, '')}"
 placeholder="${'' if p.default is None else p.default}"\
${' type="number"' if p.type in ('int', 'float') else '' | n}\
${(' step="any"' if p.type == 'float' else '') | n}\
${(' min="%s"' % p.minimum) if p.minimum is not None else '' | n}\
${(' max="%s"' % p.maximum) if p.maximum is not None else '' | n}\
${' required' if p.required else '' | n}\
${(' pattern="%s"' % escape(p.pattern)) if p.pattern else '' | n}\
${(' aria-invalid="true" aria-describedby="problem-%s"' % p.name) if problem else '' | n}>
% endif
% if problem:
<span class="problem" id="problem-${p.name}">${problem}</span>
% endif
</div>
</%def>

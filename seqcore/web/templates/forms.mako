## Form pieces: a field with its label, hint and problem, and the summary of problems.
<%def name="problems_summary(problems, heading)">
% if problems:
<div role="alert" class="error">
<p>${heading}</p>
<ul>
% for name, message in problems.items():
<li><a href="#field-${name}">${message}</a></li>
% endfor
</ul>
</div>
% endif
</%def>
<%def name="field(name, label, value='', problems=None, type='text', required=False, hint=None)">
<% problem = (problems or {}).get(name) %>
<div class="field">
<label for="field-${name}">${label}\
% if hint:
 <span class="hint">${hint}</span>\
% endif
</label>
<input id="field-${name}" name="${name}" type="${type}" value="${value}"${' required' if required else '' | n}\
${(' aria-invalid="true" aria-describedby="problem-%s"' % name) if problem else '' | n}>
% if problem:
<span class="problem" id="problem-${name}">${problem}</span>
% endif
</div>
</%def>

<%inherit file="layout.mako"/>
<%def name="title()">Profile</%def>
<h1>Profile</h1>
<dl>
<dt>Name</dt><dd>${user.first_name} ${user.last_name}</dd>
<dt>Username</dt><dd>${user.username}</dd>
<dt>E-mail</dt><dd id="email">${user.email}</dd>
<dt>Role</dt><dd>${user.system_role}</dd>
</dl>
<p><a href="${request.route_path('web.tokens')}">Access Tokens</a>: personal access tokens for
the GraphQL API.</p>

<h2>Change password</h2>
% if changed:
<p role="status" class="notice">Your password was changed. Every other session and every
OAuth token of your account has been ended.</p>
% endif
% if problems:
<div role="alert" class="error">
<p>The password was not changed:</p>
<ul>
% for field, message in problems.items():
<li><a href="#${field}">${message}</a></li>
% endfor
</ul>
</div>
% endif
<form method="post" action="${request.route_path('web.password')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<p><label for="current_password">Current password</label><br>
<input id="current_password" name="current_password" type="password"
 autocomplete="current-password" required></p>
<p><label for="new_password">New password</label><br>
<input id="new_password" name="new_password" type="password" autocomplete="new-password"
 required></p>
<p><label for="confirm_password">New password again</label><br>
<input id="confirm_password" name="confirm_password" type="password"
 autocomplete="new-password" required></p>
<p><input type="checkbox" id="keep_personal_tokens" name="keep_personal_tokens">
<label for="keep_personal_tokens">Keep my personal access tokens working (other sessions and
OAuth tokens end in any case)</label></p>
<p><button type="submit">Change password</button></p>
</form>

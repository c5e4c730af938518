<%inherit file="layout.mako"/>
<%def name="title()">Sign in</%def>
<h1>Sign in</h1>
% if error:
<p role="alert" class="error" id="sign-in-error">${error}</p>
% endif
<form method="post" action="${request.route_path('web.sign_in')}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<input type="hidden" name="next" value="${next_url}">
<p><label for="username">Username or e-mail</label><br>
<input id="username" name="username" value="${username}" autocomplete="username" required
% if error:
aria-describedby="sign-in-error"
% endif
></p>
<p><label for="password">Password</label><br>
<input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>

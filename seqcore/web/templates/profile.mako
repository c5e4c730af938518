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

<%inherit file="layout.mako"/>
<%def name="title()">${heading}</%def>
<h1>${heading}</h1>
<p role="alert">${message}</p>

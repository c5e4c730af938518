<%inherit file="layout.mako"/>
<%def name="title()">${_("Welcome")}</%def>
<h1>${_("seqcore: sequencing data for microbiology laboratories")}</h1>
<p>${_("seqcore keeps your projects, samples, reads and their metadata, checks the quality of every read file, and runs analyses on them: assemblies, typing and phylogenomic trees.")}</p>
<p>${_("The same data answers programs: the IRIDA REST API, the IRIDA Next GraphQL API and the IRIDA uploaders work with it unchanged.")}</p>
<p><a class="button" href="${request.route_path('web.sign_in')}">${_("Sign in")}</a></p>

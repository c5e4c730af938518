## SISTR's calls as a result card.
<%
    def value(key):
        found = calls.get(key)
        return "-" if found is None or found == "" else found
%>
<article class="result-card" aria-labelledby="serovar-${output.id}">
<h3 id="serovar-${output.id}">${_("Serovar")}: <span class="serovar">${value("serovar")}</span>
% if qc_badge:
<span class="badge ${qc_badge}">${qc_status}</span>
% endif
</h3>
<dl class="facts serotype">
<dt>${_("Serogroup")}</dt><dd data-call="serogroup">${value("serogroup")}</dd>
<dt>${_("O antigen")}</dt><dd data-call="o_antigen">${value("o_antigen")}</dd>
<dt>${_("H1 antigen")}</dt><dd data-call="h1">${value("h1")}</dd>
<dt>${_("H2 antigen")}</dt><dd data-call="h2">${value("h2")}</dd>
% if calls.get("serovar_antigen"):
<dt>${_("Serovar by antigens")}</dt><dd data-call="serovar_antigen">${value("serovar_antigen")}</dd>
% endif
% if calls.get("serovar_cgmlst"):
<dt>${_("Serovar by cgMLST")}</dt><dd data-call="serovar_cgmlst">${value("serovar_cgmlst")}</dd>
% endif
<dt>${_("cgMLST sequence type")}</dt><dd data-call="cgmlst_ST">${value("cgmlst_ST")}</dd>
% if calls.get("cgmlst_matching_alleles") is not None:
<dt>${_("cgMLST matching alleles")}</dt><dd data-call="cgmlst_matching_alleles">${value("cgmlst_matching_alleles")}</dd>
% endif
</dl>
% if qc_messages:
<ul class="qc-messages">
% for message in qc_messages:
<li>${message}</li>
% endfor
</ul>
% endif
</article>

## The upload area of a sample's or a project's page (seqcore/web/uploads.py): a multipart
## form that works without JavaScript; the "upload" controller (static/uploads.js) adds drag
## and drop, one request per pair or single file with a progress bar each, and the
## direct-upload path for large files.
<%!
import json
%>
<%def name="area(upload, outcomes, heading, hint)">
<%
messages = {
    "waiting": _("Waiting"), "checksum": _("Reading the file"),
    "uploading": _("Uploading"), "stored": _("Stored: QC runs now"),
    "refused": _("Refused"), "failed": _("The upload failed: ${status}"),
    "progress": _("Upload of ${name}"),
    "notKept": _("Not kept: the upload was refused."),
}
%>
<section class="upload-area" aria-labelledby="upload-heading" data-controller="upload"
 data-upload-direct-bytes-value="${upload['direct_bytes']}"
 data-upload-announce-value="${upload['announce']}"
 data-upload-messages-value="${json.dumps({k: str(v) for k, v in messages.items()})}">
<h3 id="upload-heading">${heading}</h3>
<form method="post" action="${upload['action']}" enctype="multipart/form-data"
 data-upload-target="form" data-action="submit->upload#submit">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="dropzone" data-upload-target="zone"
 data-action="dragover->upload#over dragenter->upload#over dragleave->upload#leave drop->upload#drop">
<label for="upload-files">${_("FASTQ files")} <span class="hint">${_("(.fastq or .fq, gzipped or not)")}</span></label>
<input type="file" id="upload-files" name="files" multiple accept=".fastq,.fq,.gz"
 aria-describedby="upload-hint" data-upload-target="input">
<p class="hint" data-upload-target="dropHint" hidden>${_("Or drop the files here.")}</p>
</div>
<p class="hint" id="upload-hint">${hint}</p>
<button type="submit">${_("Upload")}</button>
</form>
% if outcomes:
<div role="alert" class="error" id="upload-refusals">
<p>${_("Nothing was kept: correct the refused files and send them again.")}</p>
<ul>
% for outcome in outcomes:
<li><span class="upload-files">${", ".join(outcome.files)}</span>
(${_("sample ${name}", name=outcome.sample_name)}):
% if outcome.problem:
<span class="problem">${outcome.problem}</span>
% else:
${messages["notKept"]}
% endif
</li>
% endfor
</ul>
</div>
% endif
<ul class="upload-list" data-upload-target="list" aria-live="polite"></ul>
</section>
</%def>

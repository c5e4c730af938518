## Small renderings every page shares: times, analysis states, activity entries, verdicts.
<%! from datetime import datetime, timezone
from seqcore.web.labels import STATES, VERDICTS %>
<%def name="when(moment)">\
% if moment is None:
<span class="muted">-</span>\
% else:
<time datetime="${moment.isoformat()}">${moment.strftime("%Y-%m-%d %H:%M")}</time>\
% endif
</%def>
<%def name="instant(millis)">\
## An instant the API keeps as epoch milliseconds (a state history's), to the second, in UTC.
<% moment = datetime.fromtimestamp(millis / 1000, timezone.utc) %>\
<time datetime="${moment.isoformat()}">${moment.strftime("%Y-%m-%d %H:%M:%S")} UTC</time>\
</%def>
<%def name="state(value)"><span class="badge state-${value}">${_(STATES.get(value, value))}</span></%def>
<%def name="verdict(value)">\
% if value:
<span class="badge ${value}">${_(VERDICTS.get(value, value))}</span>\
% endif
</%def>
<%def name="actor(entry)">${entry["actor"].get("name") or _("the service")}</%def>
<%def name="activity(entry)">${actor(entry)}: <code>${entry["kind"]}</code>\
% if entry["changes"]:
 (${len(entry["changes"])} ${_("changes")})\
% endif
</%def>

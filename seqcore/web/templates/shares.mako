## The groups a project or a group is shared with, and (for those who may change it) the
## forms sharing it with another group and unsharing: used by manage.mako and group.mako.
<%! from seqcore.web.labels import ACCESS_LEVELS %>
<%namespace name="fmt" file="formats.mako"/>
<%def name="section(shares, add_action, remove_route, level_route, owner_id, can_write, share_levels, share_groups)">
<section aria-labelledby="shares">
<h2 id="shares">${_("Shared with groups")}</h2>
% if shares:
<div class="table-wrap"><table aria-labelledby="shares">
<thead><tr><th scope="col">${_("Group")}</th><th scope="col">${_("Access level")}</th>
<th scope="col">${_("Shared on")}</th>
% if can_write:
<th scope="col"><span class="visually-hidden">${_("Actions")}</span></th>
% endif
</tr></thead>
<tbody>
% for share, grantee in shares:
<tr><td><a href="${request.route_path('web.group', id=grantee.id)}">${grantee.full_path}</a></td>
<td>\
% if can_write:
<form method="post" class="inline" action="${request.route_path(level_route, id=owner_id, share=share.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<select name="access_level" aria-label="${_('Access level of ${group}', group=grantee.full_path)}">
% for level in share_levels:
<option value="${level.value}"${' selected' if level.value == share.access_level else '' | n}>${_(ACCESS_LEVELS[level.value])}</option>
% endfor
</select>
<button type="submit" class="secondary" aria-label="${_('Change the level of ${group}', group=grantee.full_path)}">${_("Change")}</button></form>\
% else:
${_(ACCESS_LEVELS.get(share.access_level, str(share.access_level)))}\
% endif
</td>
<td>${fmt.when(share.created)}</td>
% if can_write:
<td><form method="post" class="inline" action="${request.route_path(remove_route, id=owner_id, share=share.id)}">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<button type="submit" class="secondary" aria-label="${_('Unshare with ${group}', group=grantee.full_path)}">${_("Unshare")}</button></form></td>
% endif
</tr>
% endfor
</tbody></table></div>
% else:
<p class="muted">${_("Not shared with any group.")}</p>
% endif
% if can_write and share_groups:
<form method="post" action="${add_action}" class="table-tools">
<input type="hidden" name="csrf_token" value="${csrf_token}">
<div class="field"><label for="share-group">${_("Group")}</label><select id="share-group" name="group_id" required>
% for group in share_groups:
<option value="${group.id}">${group.full_path}</option>
% endfor
</select></div>
<div class="field"><label for="share-level">${_("Access level")}</label><select id="share-level" name="access_level">
% for level in share_levels:
<option value="${level.value}">${_(ACCESS_LEVELS[level.value])}</option>
% endfor
</select></div>
<div class="field"><button type="submit">${_("Share")}</button></div>
</form>
<p class="hint">${_("The group's members get access to it up to the level chosen, never above their own.")}</p>
% endif
</section>
</%def>

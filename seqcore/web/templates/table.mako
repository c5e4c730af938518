## The server-side table (seqcore.web.table): filters form, bulk actions, the rows, the pager.
## Use:  <%namespace name="tables" file="table.mako"/>  ...  ${tables.render(table_page)}
<%def name="render(tp)">
<% table = tp.table; key = table.key %>
<div class="table" id="${key}"
% if table.selectable:
 data-controller="selection" data-selection-key-value="${key}"
% endif
>
% if table.filters:
<form method="get" class="table-tools" role="search" aria-label="${_('Filter')} ${_(table.caption) if table.caption else ''}">
% for name, values in tp.kept.items():
% for value in ([values] if isinstance(values, str) else values):
<input type="hidden" name="${name}" value="${value}">
% endfor
% endfor
% for spec in table.filters:
<div class="field">
<label for="${key}-f-${spec.key}">${_(spec.label)}</label>
% if spec.kind == "choice":
<select id="${key}-f-${spec.key}" name="${spec.key}">
<option value="">${_("Any")}</option>
% for value, label in spec.choices:
<option value="${value}"${' selected' if tp.state.filters.get(spec.key) == value else '' | n}>${_(label)}</option>
% endfor
</select>
% else:
<input id="${key}-f-${spec.key}" name="${spec.key}" type="${'date' if spec.kind == 'date' else 'search'}"
 value="${tp.state.filters.get(spec.key, '')}">
% endif
</div>
% endfor
<div class="field">
<label for="${key}-per-page">${_("Rows per page")}</label>
<select id="${key}-per-page" name="per_page">
% for size in table.page_sizes:
<option${' selected' if size == tp.state.per_page else '' | n}>${size}</option>
% endfor
</select>
</div>
% if tp.state.sort:
<input type="hidden" name="sort" value="${tp.state.sort}">
<input type="hidden" name="direction" value="${'desc' if tp.state.descending else 'asc'}">
% endif
<div class="field"><button type="submit">${_("Apply")}</button></div>
</form>
% endif
% if table.selectable and table.actions:
<form method="post" id="${key}-bulk" class="bulk" data-action="submit->selection#submit"
 data-turbo="false">
<input type="hidden" name="csrf_token" value="${csrf_token}">
% for name, value in tp.state.filters.items():
<input type="hidden" name="filter.${name}" value="${value}">
% endfor
<span>${_("Selected:")} <strong data-selection-target="count">0</strong></span>
<span><input type="checkbox" id="${key}-matching" name="all_matching" value="1" data-selection-target="matching">
<label for="${key}-matching">${_("All ${count} matching rows", count=tp.total)}</label></span>
% for action in table.actions:
<button type="submit" name="action" value="${action.name}" formaction="${action.url}"
 formmethod="${action.method}" class="${'danger' if action.danger else 'secondary'}">${_(action.label)}</button>
% endfor
<button type="button" class="secondary" data-action="selection#clear">${_("Clear selection")}</button>
</form>
% endif
<div class="table-wrap">
<table>
% if table.caption:
<caption class="visually-hidden">${_(table.caption)}</caption>
% endif
<thead><tr>
% if table.selectable:
<th scope="col"><input type="checkbox" aria-label="${_('Select every row of this page')}"
 data-selection-target="all" data-action="selection#toggleAll"></th>
% endif
% for column in table.columns:
<% sort = tp.aria_sort(column) %>
<th scope="col"${' class="number"' if column.numeric else '' | n}${(' aria-sort="%s"' % sort) if sort else '' | n}>\
% if column.sortable:
<a href="${tp.sort_query(column)}">${_(column.label)}</a>${' ▲' if sort == 'ascending' else (' ▼' if sort == 'descending' else '')}\
% else:
${_(column.label)}\
% endif
</th>
% endfor
</tr></thead>
<tbody>
% for row in tp.rows:
<tr>
% if table.selectable:
<td><input type="checkbox" name="selected" value="${row.id}" form="${key}-bulk"
 aria-label="${_('Select')} ${row.cells[0].text if row.cells else row.id}"
 data-selection-target="row" data-action="selection#toggle"></td>
% endif
% for column, cell in zip(table.columns, row.cells):
<td${' class="number"' if column.numeric else '' | n}>\
% if cell.html is not None:
${cell.html | n}\
% elif cell.href:
<a href="${cell.href}">${cell.text}</a>\
% else:
${cell.text}\
% endif
</td>
% endfor
</tr>
% endfor
% if not tp.rows:
<tr><td colspan="${len(table.columns) + (1 if table.selectable else 0)}" class="muted">${_("Nothing to show.")}</td></tr>
% endif
</tbody>
</table>
</div>
<nav class="pager" aria-label="${_('Pages')}">
<span>${_("Rows ${first}-${last} of ${total}", first=tp.first_row, last=tp.last_row, total=tp.total)}</span>
% if tp.state.page > 1:
<a href="${tp.query(page=1)}">${_("First")}</a>
<a href="${tp.query(page=tp.state.page - 1)}" rel="prev">${_("Previous")}</a>
% endif
<span>${_("Page ${page} of ${pages}", page=tp.state.page, pages=tp.pages)}</span>
% if tp.state.page < tp.pages:
<a href="${tp.query(page=tp.state.page + 1)}" rel="next">${_("Next")}</a>
<a href="${tp.query(page=tp.pages)}">${_("Last")}</a>
% endif
</nav>
</div>
</%def>

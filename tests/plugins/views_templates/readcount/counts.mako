<h3>${_("Reads")}</h3>
<figure class="counts" data-icon="${plugin_static('readcount-views', 'counts.svg')}">${chart | n}</figure>
<p class="counts-total">${sum(int(count) for _name, count in rows)}</p>

<h3>${_("Reads")}</h3>
<p class="counts-note">${_("Counted by the read counter.")}</p>
<figure class="counts" data-icon="${plugin_static('readcount-views', 'counts.svg')}">${chart | n}</figure>
<p class="counts-total">${sum(int(count) for _name, count in rows)}</p>

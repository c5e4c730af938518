<p class="kind-summary">${object.kind}: ${len(object.files)} files, first ${first}</p>

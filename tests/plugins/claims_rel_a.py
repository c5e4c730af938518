from seqcore import hookimpl
from seqcore.framework.contrib import LinkSpec
from seqcore.framework.links import api_href
from seqcore.resources.root import ApiRoot


@hookimpl
def register_links():
    return [LinkSpec(ApiRoot, "shared/rel", api_href("a"))]

from seqcore import hookimpl


@hookimpl
def register_links():
    return ["not a LinkSpec"]

from seqcore import hookimpl
from seqcore.framework.contrib import Endpoint, View


def nothing(request):
    return {}


@hookimpl
def register_rest_endpoints():
    return [Endpoint("other.greetings", "/api/greetings", {"GET": View(nothing)})]

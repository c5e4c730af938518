"""The JSON renderer behind every REST view."""

from __future__ import annotations

import datetime
from typing import Any

from pyramid.config import Configurator
from pyramid.renderers import JSON


def _datetime_adapter(value: datetime.datetime, request: Any) -> int:
    from seqcore.rest.values import epoch_ms

    return epoch_ms(value)


def includeme(config: Configurator) -> None:
    renderer = JSON()
    renderer.add_adapter(datetime.datetime, _datetime_adapter)
    config.add_renderer("seqcore_json", renderer)

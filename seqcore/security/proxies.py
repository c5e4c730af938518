"""Who the client is, behind reverse proxies that are trusted and only those.

``X-Forwarded-For``, ``X-Forwarded-Proto`` and ``X-Forwarded-Host`` are ordinary headers:
anyone can send them. If they were believed from anyone, a password guesser would name a new
address on every request and never reach the per-address limit, and anyone could change the
host written into links. So they count only when the connection comes from an address in
``seqcore.trusted_proxies``; the client address is then the right-most ``X-Forwarded-For``
entry that is not itself a trusted proxy (entries further left were written by the client
and prove nothing). From anyone else the headers are removed before the application sees
them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from pyramid.config import Configurator
from pyramid.registry import Registry
from pyramid.request import Request
from pyramid.response import Response

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST",
             "HTTP_X_FORWARDED_SCHEME", "HTTP_X_FORWARDED_SERVER", "HTTP_FORWARDED")


def parse_networks(value: str | Iterable[str]) -> tuple[Network, ...]:
    """``"127.0.0.1 10.0.0.0/8, ::1"`` as networks; a bad entry fails at start-up."""
    items = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in items)


@lru_cache(maxsize=4096)
def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address written in ``value`` (with or without a port), or ``None``. Parsed once per
    distinct value: every request asks about its peer's, and few peers come and go."""
    value = value.strip()
    if value.startswith("[") and "]" in value:  # [v6]:port
        value = value[1:value.index("]")]
    elif value.count(":") == 1:  # v4:port
        value = value.split(":", 1)[0]
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def is_trusted(address: str | None, networks: tuple[Network, ...]) -> bool:
    ip = _ip(address or "")
    return ip is not None and any(ip in network for network in networks)


def client_address(environ: dict[str, Any], networks: tuple[Network, ...]) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy; then the
    right-most ``X-Forwarded-For`` entry that is not a trusted proxy."""
    peer = environ.get("REMOTE_ADDR") or "unknown"
    if not is_trusted(peer, networks):
        return peer
    hops = [hop.strip() for hop in environ.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if hop.strip()]
    for hop in reversed(hops):
        if not is_trusted(hop, networks):
            ip = _ip(hop)
            return str(ip) if ip is not None else hop[:64]
    return str(_ip(hops[0])) if hops and _ip(hops[0]) else peer


def apply_forwarded(environ: dict[str, Any], networks: tuple[Network, ...]) -> None:
    """Rewrite ``environ`` in place: client address, scheme and host from a trusted proxy's
    headers; every forwarding header removed, so nothing later can read them naively."""
    if is_trusted(environ.get("REMOTE_ADDR"), networks):
        environ["REMOTE_ADDR"] = client_address(environ, networks)
        proto = (environ.get("HTTP_X_FORWARDED_PROTO") or "").split(",")[0].strip().lower()
        if proto in ("http", "https"):
            environ["wsgi.url_scheme"] = proto
        host = (environ.get("HTTP_X_FORWARDED_HOST") or "").split(",")[0].strip()
        if host:
            environ["HTTP_HOST"] = host
            environ["SERVER_NAME"] = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            environ["SERVER_PORT"] = (host.rsplit(":", 1)[1] if ":" in host and
                                      not host.endswith("]") else
                                      ("443" if environ["wsgi.url_scheme"] == "https" else "80"))
    for name in FORWARDED:
        environ.pop(name, None)


def forwarded_tween_factory(handler: Callable[..., Any], registry: Registry) -> Callable[..., Any]:
    networks = parse_networks(str(registry.settings.get("seqcore.trusted_proxies", "")))

    def tween(request: Request) -> Response:
        apply_forwarded(request.environ, networks)
        return handler(request)

    return tween


def includeme(config: Configurator) -> None:
    from pyramid.tweens import INGRESS

    parse_networks(str(config.get_settings().get("seqcore.trusted_proxies", "")))
    config.add_tween("seqcore.security.proxies.forwarded_tween_factory", under=INGRESS)

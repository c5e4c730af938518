"""Every message of the pages goes through Pyramid's translation machinery.

Python code marks a message with :data:`_` (a :class:`~pyramid.i18n.TranslationString` of the
``seqcore`` domain); templates call ``_()`` too, which translates at once for the request's
locale. The catalogues live in ``seqcore/web/locale/<lang>/LC_MESSAGES/seqcore.po`` (compiled
to ``.mo`` beside them; ``docs/web.md`` says how to extract and compile with Babel).

A plugin's views speak through a catalogue of their own: :func:`add_plugin_catalogue` adds
its directory (one compiled catalogue per language seqcore speaks, checked at start-up) and
:func:`translator` looks a message up in the plugin's domain first, then in seqcore's.

The language of a page: the account's choice (``User.locale``, set on the profile page or
through REST) when it is one seqcore speaks, else the browser's ``Accept-Language``, else
English. An account may also choose "the browser's language" (:data:`BROWSER`).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError
from pyramid.i18n import TranslationString, TranslationStringFactory
from pyramid.request import Request

DOMAIN = "seqcore"
_ = TranslationStringFactory(DOMAIN)

#: The languages the pages speak, with their names in themselves (never translated).
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français"}
DEFAULT = "en"
#: The account's locale when it asks for the browser's language.
BROWSER = "browser"


def account_locale(request: Request) -> str | None:
    """The signed-in account's chosen language, if seqcore speaks it (one primary-key read,
    at most once per request)."""
    from seqcore.models.user import User
    from seqcore.security.policy import session_identity

    identity = session_identity(request)
    if identity is None:
        return None
    user = request.db.get(User, identity.user_id)
    choice = (user.locale or "").split("_")[0].split("-")[0].lower() if user else ""
    return choice if choice in LANGUAGES else None


def negotiate_locale(request: Request) -> str:
    """The account's choice, then ``Accept-Language``, then English."""
    chosen = account_locale(request)
    if chosen:
        return chosen
    header = request.accept_language
    if header:
        return header.lookup(list(LANGUAGES), default=DEFAULT)
    return DEFAULT


def translate(request: Request, message: str | TranslationString, **mapping: Any) -> str:
    """``message`` in the request's language, ``${name}`` placeholders filled from
    ``mapping`` (a :class:`TranslationString` keeps its own mapping unless one is given)."""
    if not isinstance(message, TranslationString):
        message = TranslationString(message, domain=DOMAIN, mapping=mapping or None)
    elif mapping:
        message = TranslationString(message, domain=message.domain or DOMAIN,
                                    mapping={**(message.mapping or {}), **mapping},
                                    default=message.default)
    return request.localizer.translate(message)


def translator(request: Request, domain: str) -> Callable[..., str]:
    """``_(message, **mapping)`` for a plugin's views: ``message`` in the request's language
    from the ``domain`` catalogue, else from seqcore's (a word the core already translates),
    else as written."""

    def _(message: str | TranslationString, **mapping: Any) -> str:
        if isinstance(message, TranslationString) and message.domain not in (None, domain):
            return translate(request, message, **mapping)
        own = TranslationString(message, domain=domain,
                                mapping={**(getattr(message, "mapping", None) or {}),
                                         **mapping} or None)
        found = request.localizer.translate(own)
        if domain != DOMAIN and found == own.interpolate():
            return translate(request, str(message), **(own.mapping or {}))
        return str(found)

    return _


def add_plugin_catalogue(config: Configurator, plugin: str, directory: str | Path,
                         domain: str) -> None:
    """Add a plugin's catalogues (``<directory>/<lang>/LC_MESSAGES/<domain>.mo``), refusing
    the start-up, naming the plugin, when one language seqcore speaks has none or it does
    not load."""
    root = Path(directory)
    for lang in LANGUAGES:
        compiled = root / lang / "LC_MESSAGES" / f"{domain}.mo"
        if not compiled.is_file():
            raise ConfigurationError(
                f"plugin {plugin!r}: translations of domain {domain!r}: no compiled catalogue "
                f"{str(compiled)!r} (every language the pages speak needs one: "
                f"{', '.join(LANGUAGES)})")
        try:
            with compiled.open("rb") as handle:
                gettext.GNUTranslations(handle)
        except Exception as error:  # a corrupt .mo: OSError, struct.error, UnicodeError...
            raise ConfigurationError(f"plugin {plugin!r}: translations of domain {domain!r}: "
                                     f"{str(compiled)!r} does not load: {error}") from None
    config.add_translation_dirs(str(root))


#: The compiled English and French catalogues.
LOCALE = Path(__file__).resolve().parent / "locale"


def includeme(config: Configurator) -> None:
    # A directory, not an asset spec: pkg_resources cannot list a package imported through an
    # import hook it does not know (pytest's assertion rewriting of the test kit's package).
    config.add_translation_dirs(str(LOCALE))
    config.set_locale_negotiator(negotiate_locale)

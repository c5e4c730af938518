"""Every message of the pages goes through Pyramid's translation machinery.

Python code marks a message with :data:`_` (a :class:`~pyramid.i18n.TranslationString` of the
``seqcore`` domain); templates call ``_()`` too, which translates at once for the request's
locale. The catalogues live in ``seqcore/web/locale/<lang>/LC_MESSAGES/seqcore.po`` (compiled
to ``.mo`` beside them; ``docs/web.md`` says how to extract and compile with Babel).

The language of a page: the account's choice (``User.locale``, set on the profile page or
through REST) when it is one seqcore speaks, else the browser's ``Accept-Language``, else
English. An account may also choose "the browser's language" (:data:`BROWSER`).
"""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator
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


def includeme(config: Configurator) -> None:
    config.add_translation_dirs("seqcore.web:locale")
    config.set_locale_negotiator(negotiate_locale)

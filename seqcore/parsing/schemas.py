"""Validation of the domain's inputs: the schemas of users, projects, memberships, samples and
runs, the name rules, and :func:`check`, which answers every problem at once.

Both transports use them, so a name refused over REST is refused with the same words over
GraphQL: REST feeds them the JSON body, GraphQL its arguments under the wire names. Field
names are the wire names IRIDA clients send (``sampleName``, ``projectDescription``); the
problems are keyed by them, and each transport maps them to its own paths.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, cast

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

from seqcore.errors.domain import Invalid
from seqcore.models.project import ProjectRole
from seqcore.models.user import SystemRole
from seqcore.parsing.fields import Choice, Text, WholeNumber

PROJECT_FORBIDDEN = '?()[]/\\=+<>:;",*^|&'
NAME_RULE = ("Names must NOT include the space character and the following: "
             "? ( ) [ ] / \\ = + < > : ; \" ' , * ^ | & .")


def forbidden_characters(forbidden: str, whitespace: bool = False) -> Callable[[str], None]:
    """A validator giving one message per offending character, in order of appearance."""

    def check(value: str) -> None:
        problems = []
        seen = set()
        for char in value:
            if char in seen:
                continue
            if whitespace and char.isspace():
                seen.add(char)
                problems.append(f"The name you have supplied contains a space character. "
                                f"{NAME_RULE}")
            elif char in forbidden:
                seen.add(char)
                problems.append(f"The name you have supplied contains a '{char}' character. "
                                f"{NAME_RULE}")
        if problems:
            raise ValidationError(problems)

    return check


def _required(message: str) -> dict[str, Any]:
    return {"required": message, "null": message}


def _text(**kw: Any) -> fields.String:
    return Text(**kw)


def _at_least(length: int, short: str, required: str, **kw: Any) -> fields.String:
    """A required string of at least ``length`` characters, with both messages."""
    return Text(required=True, error_messages=_required(required),
                         validate=validate.Length(min=length, max=255, error=short), **kw)


class UserSchema(Schema):
    username = _at_least(3, "Username must be at least 3 characters long.",
                         "You must provide a username.")
    email = fields.Email(
        required=True, error_messages={**_required("You must provide an e-mail address."),
                                       "invalid": "You must provide a valid e-mail address."},
        validate=validate.Length(min=5, max=255,
                                 error="E-mail must be at least 5 characters long."))
    password = _text(required=True, load_only=True,
                     error_messages=_required("You must provide a password."))
    firstName = _at_least(2, "First name must be at least 2 characters long.",
                          "You must provide a first name.")
    lastName = _at_least(2, "Last name must be at least 2 characters long.",
                         "You must provide a last name.")
    phoneNumber = _at_least(4, "Phone number must be at least 4 characters long.",
                            "You must provide a phone number.")
    # ROLE_BOT is a bot account's, given when the bot is made (seqcore.projects.bots).
    systemRole = Choice([r.value for r in SystemRole if r is not SystemRole.BOT],
                        error="You must provide a valid system role: {choices}.")
    enabled = fields.Boolean()
    locale = _text(validate=validate.Length(min=2, max=16))
    # Changing one's own password needs the current one; the change ends other credentials,
    # personal access tokens too unless kept (docs/security.md).
    currentPassword = _text(load_only=True)
    keepPersonalAccessTokens = fields.Boolean(load_only=True)


class ProjectSchema(Schema):
    name = _text(required=True, error_messages=_required("You must provide a project name."),
                 validate=[validate.Length(min=5, error="Project name must be at least 5 "
                                                        "characters long."),
                           validate.Length(max=255, error="Project name must be at most 255 "
                                                          "characters long."),
                           forbidden_characters(PROJECT_FORBIDDEN)])
    projectDescription = _text(allow_none=True)
    remoteURL = fields.Url(allow_none=True, require_tld=False,
                           error_messages={"invalid": "The remote URL must be a valid URL."})
    organism = _text(allow_none=True, validate=validate.Length(max=255))
    genomeSize = WholeNumber(allow_none=True, validate=validate.Range(
        min=1, error="Genome size must be at least 1."))
    minimumCoverage = WholeNumber(allow_none=True, validate=validate.Range(
        min=1, error="Minimum coverage must be at least 1."))
    maximumCoverage = WholeNumber(allow_none=True, validate=validate.Range(
        min=1, error="Maximum coverage must be at least 1."))
    syncFrequency = Choice(["NEVER", "DAILY", "WEEKLY", "MONTHLY", "SEMIMONTHLY", "QUARTERLY"],
                           allow_none=True)


class MembershipSchema(Schema):
    userId = _text(required=True, error_messages=_required("You must provide a userId "
                                                           "(the username to add)."))
    role = Choice([r.value for r in ProjectRole], load_default=ProjectRole.USER.value,
                  error="The role must be one of {choices}.")
    metadataRole = Choice(["LEVEL_1", "LEVEL_2", "LEVEL_3", "LEVEL_4"], load_default=None,
                          allow_none=True, error="The metadata role must be one of {choices}.")
    # When the membership ends (checked by seqcore.parsing.expiry.parse_expiry).
    expiresAt = fields.Raw(load_default=None, allow_none=True)


class MembershipExpirySchema(Schema):
    """A change of a project membership's expiry (``null`` removes it)."""

    expiresAt = fields.Raw(required=True, allow_none=True, error_messages={
        "required": "You must provide an expiresAt (null: the membership does not expire)."})


class GroupSchema(Schema):
    """A new group (REST ``POST /api/groups`` and ``/api/groups/{id}/groups``); the path is
    checked by :func:`seqcore.projects.groups.create_group`."""

    name = _text(required=True, error_messages=_required("You must provide a group name."),
                 validate=[validate.Length(min=1, max=255, error="Group name must be between "
                                                                "1 and 255 characters long.")])
    path = _text(allow_none=True)
    description = _text(allow_none=True)


class GroupMemberSchema(Schema):
    """A group membership: the username and the access level (a name or IRIDA Next's
    number, checked by :func:`seqcore.projects.groups.parse_level`)."""

    userId = _text(required=True, error_messages=_required("You must provide a userId "
                                                           "(the username to add)."))
    accessLevel = fields.Raw(required=True, error_messages=_required(
        "You must provide an accessLevel."))
    # When the membership ends (checked by seqcore.parsing.expiry.parse_expiry).
    expiresAt = fields.Raw(load_default=None, allow_none=True)


class BotTokenSchema(Schema):
    """A bot's personal access token: its name, scopes (``read_api``, ``api``) and optional
    expiry (``YYYY-MM-DD``), checked by :mod:`seqcore.projects.bots`."""

    name = fields.Raw(required=True, error_messages=_required("You must provide a name."))
    scopes = fields.Raw(required=True, error_messages=_required(
        "You must provide scopes (read_api, api)."))
    expiresAt = fields.Raw(load_default=None, allow_none=True)


class RemoteApiSchema(Schema):
    """A remote API's values as REST sends them; the register
    (``seqcore.remotes.registry``) checks each one, so the schema only names them."""

    name = fields.Raw(allow_none=True)
    baseUrl = fields.Raw(allow_none=True)
    kind = fields.Raw(allow_none=True)
    graphqlUrl = fields.Raw(allow_none=True)
    description = fields.Raw(allow_none=True)
    clientId = fields.Raw(allow_none=True)
    clientSecret = fields.Raw(allow_none=True)


class BotSchema(Schema):
    """A new project or group bot: its access level (a name or IRIDA Next's number) and its
    first token (``tokenName``, ``scopes``, ``expiresAt``)."""

    accessLevel = fields.Raw(required=True, error_messages=_required(
        "You must provide an accessLevel."))
    tokenName = fields.Raw(required=True, error_messages=_required(
        "You must provide a tokenName (the bot's first personal access token)."))
    scopes = fields.Raw(required=True, error_messages=_required(
        "You must provide scopes (read_api, api)."))
    expiresAt = fields.Raw(load_default=None, allow_none=True)


class GroupLevelSchema(Schema):
    """A change of a membership's access level, its expiry, or both (a field left out is
    kept; ``expiresAt: null`` removes the expiry)."""

    accessLevel = fields.Raw(allow_none=True)
    expiresAt = fields.Raw(allow_none=True)


class ShareLevelSchema(Schema):
    """A share's new access level (a number or a name, as when sharing)."""

    accessLevel = fields.Raw(required=True, error_messages=_required(
        "You must provide an accessLevel."))


class ShareSchema(Schema):
    """A share with a group: its numeric id and the highest access level it gives."""

    groupId = WholeNumber(required=True, error_messages=_required(
        "You must provide a groupId (the group to share with)."))
    accessLevel = fields.Raw(required=True, error_messages=_required(
        "You must provide an accessLevel."))


class ProjectTransferSchema(Schema):
    """Where a project moves: a group's numeric id, or ``null`` for the caller's own
    namespace."""

    groupId = WholeNumber(required=True, allow_none=True, error_messages={
        "required": "You must provide a groupId (the group to move the project into, or "
                    "null for your own namespace)."})


class GroupTransferSchema(Schema):
    """Where a group moves: the numeric id of the group to move it under, or ``null`` for
    the top level."""

    parentId = WholeNumber(required=True, allow_none=True, error_messages={
        "required": "You must provide a parentId (the group to move the group under, or "
                    "null for the top level)."})


SAMPLE_FORBIDDEN = PROJECT_FORBIDDEN + "'."
GEO_PATTERN = re.compile(r"\w+(:\w+(:\w+)?)?")
LATITUDE = re.compile(r"-?\d{1,2}(\.\d+)?")
LONGITUDE = re.compile(r"-?\d{1,3}(\.\d+)?")


def _too_short(what: str) -> validate.Length:
    return validate.Length(min=3, error=f"The {what} that you provided is too short. The {what} "
                                        "must have at least 3 characters.")


def _coordinate(pattern: re.Pattern[str], limit: int, message: str) -> Callable[[str], None]:
    def check(value: str) -> None:
        if not pattern.fullmatch(value) or abs(float(value)) > limit:
            raise ValidationError(message)

    return check


def _geographic(value: str) -> None:
    if len(value) >= 3 and not GEO_PATTERN.fullmatch(value):
        raise ValidationError("The geographic location name does not match the pattern "
                              "{term}:{term}:{text}.")


class IsoDate(fields.Field[datetime.date]):
    """``yyyy-MM-dd``, and a real calendar date."""

    default_error_messages = {"invalid": "'collectionDate' must be in the format yyyy-MM-dd"}

    def _deserialize(self, value: object, attr: str | None, data: object,
                     **kwargs: object) -> datetime.date:
        if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise self.make_error("invalid")
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            raise self.make_error("invalid") from None


class SampleSchema(Schema):
    sampleName = _text(required=True, error_messages=_required("You must provide a sample name."),
                       validate=[validate.Length(min=3, error="Sample name must be at least 3 "
                                                              "characters long."),
                                 validate.Length(max=255, error="Sample name must be at most "
                                                                "255 characters long."),
                                 forbidden_characters(SAMPLE_FORBIDDEN, whitespace=True)])
    description = _text(allow_none=True)
    organism = _text(allow_none=True, validate=_too_short("organism description"))
    isolate = _text(allow_none=True, validate=_too_short("isolate name"))
    strain = _text(allow_none=True, validate=_too_short("strain name"))
    collectedBy = _text(allow_none=True, validate=_too_short("collected by name"))
    collectionDate = IsoDate(allow_none=True)
    geographicLocationName = _text(allow_none=True, validate=[
        _too_short("geographic location name"), _geographic])
    isolationSource = _text(allow_none=True)
    latitude = _text(allow_none=True, validate=_coordinate(LATITUDE, 90,
                                                           "Not a valid latitude coordinate."))
    longitude = _text(allow_none=True, validate=_coordinate(LONGITUDE, 180,
                                                            "Not a valid longitude coordinate."))


def _no_control_characters(value: str) -> None:
    if any(unicodedata.category(char) == "Cc" for char in value):
        raise ValidationError("Sample name must not contain control characters (tabs, line "
                              "breaks, NUL).")


def _not_blank(value: str) -> None:
    if not value.strip():
        raise ValidationError("Sample name can't be blank.")


class IridaNextSampleSchema(Schema):
    """A sample as GraphQL's IRIDA Next dialect creates it: IRIDA Next's rule for names (3 to
    255 characters, not blank), so ``Outbreak 2022 Sample 1`` and ``2024.001`` are
    names; only control characters are refused besides, which no screen or file name shows.
    REST keeps IRIDA's stricter rule (:class:`SampleSchema`) for the samples it writes."""

    sampleName = _text(required=True, error_messages=_required("You must provide a sample name."),
                       validate=[_not_blank,
                                 validate.Length(min=3, error="Sample name must be at least 3 "
                                                              "characters long."),
                                 validate.Length(max=255, error="Sample name must be at most "
                                                                "255 characters long."),
                                 _no_control_characters])
    description = _text(allow_none=True)


class RunSchema(Schema):
    """The core fields of a sequencing run; every other key is run-sheet metadata. The view
    checks the sequencer type's spelling (it may also come from the path)."""

    description = Text(allow_none=True, error_messages={
        "invalid": "The description must be a string."})
    uploadStatus = Choice(["UPLOADING", "COMPLETE", "ERROR"],
                          error="The upload status must be UPLOADING, COMPLETE or ERROR.",
                          error_messages={"null": "The upload status must be UPLOADING, "
                                                  "COMPLETE or ERROR."})
    sequencerType = Text(allow_none=True, error_messages={
        "invalid": "Sequencer type can only contain lowercase letters, numbers, - or _."})
    layoutType = Choice(["SINGLE_END", "PAIRED_END"],
                        error="The layout type must be SINGLE_END or PAIRED_END.",
                        error_messages={"null": "You must provide a layout type (SINGLE_END "
                                                "or PAIRED_END)."})


def check(schema: Schema, data: Mapping[str, Any], *, partial: bool = False,
          allow_unknown: bool = False, updating: bool = False) -> dict[str, Any]:
    """The validated values of ``data``, or :class:`~seqcore.errors.domain.Invalid`.

    Unknown fields are refused with a message listing the acceptable ones (under
    ``acceptable-properties``), unless ``allow_unknown`` (a lenient client creating
    something), in which case they are dropped; ``updating`` words that message for a change
    rather than a creation. All field problems come back at once, keyed by field name.
    """
    accepted = sorted(name for name, field in schema.fields.items() if not field.dump_only)
    unknown = sorted(set(data) - set(accepted))
    if unknown and not allow_unknown:
        if updating:
            message = "Cannot update resource with supplied properties."
        else:
            message = "Your request could not be parsed. Unrecognized property in JSON request."
        acceptable: dict[str, Any] = {"acceptable-properties": accepted}
        raise Invalid(message=f"{message} Unknown: {', '.join(unknown)}.", **acceptable)
    try:
        return cast("dict[str, Any]", schema.load(dict(data), partial=partial, unknown=EXCLUDE))
    except ValidationError as err:
        raise Invalid(_flatten(err.messages)) from None


def _flatten(messages: Any) -> dict[str, list[str]]:
    if isinstance(messages, list):
        return {"": [str(m) for m in messages]}
    out: dict[str, list[str]] = {}
    for key, value in messages.items():
        if isinstance(value, dict):
            for sub, msgs in _flatten(value).items():
                out[f"{key}.{sub}" if sub else key] = msgs
        else:
            out[key] = [str(m) for m in (value if isinstance(value, list) else [value])]
    return out


class MetadataFieldSchema(Schema):
    """A declared metadata field (``/api/projects/{id}/metadataFields``); the rules between
    its values (choices only for lists, a pattern that compiles) are
    :mod:`seqcore.samples.metadatafields`'s."""

    name = Text(required=True, validate=validate.Length(min=1, max=255))
    type = Choice(["text", "number", "date", "list"], load_default="text")
    choices = fields.List(Text(), allow_none=True, load_default=None)
    pattern = Text(allow_none=True, load_default=None, validate=validate.Length(max=1024))
    restriction = Choice(["LEVEL_1", "LEVEL_2", "LEVEL_3", "LEVEL_4"], load_default="LEVEL_1",
                         error="The restriction must be one of {choices}.")


class MetadataTemplateSchema(Schema):
    """A metadata template: a name and the ordered names of declared fields."""

    name = Text(required=True, validate=validate.Length(min=1, max=255))
    description = Text(allow_none=True, load_default=None)
    # marshmallow takes declared fields out of the class, so this one may be called
    # ``fields``; its annotations see Schema.fields (the instance's dict of fields) instead.
    fields = fields.List(Text(), required=True)  # type: ignore[assignment]

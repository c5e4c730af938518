"""seqcore's schema against IRIDA Next's own (``data/irida_next_schema.graphql``, its
``app/graphql/schema.graphql`` at commit e84f23ed of phac-nml/irida-next, 2026-08-21).

Every query field, mutation and object type of IRIDA Next exists in seqcore with the same
argument and field names (and every field of a mutation's input), or is listed with the
reason it differs in the table of ``docs/graphql.md`` ("Differences from IRIDA Next's
schema"). Names are written ``Type``, ``Type.field`` or ``Type.field(argument)``.
"""

from __future__ import annotations

import re
from pathlib import Path

from graphql import (
    GraphQLInputObjectType,
    GraphQLObjectType,
    build_schema,
    get_named_type,
)

from seqcore.graphql.schema import SCHEMA

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
IRIDA_NEXT = HERE / "data" / "irida_next_schema.graphql"

# What the attachments branch builds (attachments, direct upload, workflow executions,
# issue 19 points 3 and 4); the lead empties this set when it merges. (``Pipeline``,
# ``pipeline`` and ``pipelines`` exist in seqcore already with IRIDA Next's names.)


def documented_differences() -> set[str]:
    """The names in the first column of the differences table of docs/graphql.md."""
    text = (ROOT / "docs" / "graphql.md").read_text()
    section = text.split("## Differences from IRIDA Next's schema", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        match = re.match(r"\|\s*((?:`[^`]+`[,\s]*)+)\|", line)
        if match:
            names.update(re.findall(r"`([^`]+)`", match.group(1)))
    return names


def differences(ours, theirs) -> list[str]:
    """What IRIDA Next's schema has and seqcore's lacks, by name."""
    missing = []
    for name, their_type in sorted(theirs.type_map.items()):
        if name.startswith("__") or not isinstance(their_type, GraphQLObjectType):
            continue
        our_type = ours.type_map.get(name)
        if not isinstance(our_type, GraphQLObjectType):
            missing.append(name)
            continue
        for field_name, their_field in their_type.fields.items():
            our_field = our_type.fields.get(field_name)
            if our_field is None:
                missing.append(f"{name}.{field_name}")
                continue
            for argument in their_field.args:
                if argument not in our_field.args:
                    missing.append(f"{name}.{field_name}({argument})")
            if name == "Mutation" and "input" in their_field.args and "input" in our_field.args:
                their_input = get_named_type(their_field.args["input"].type)
                our_input = get_named_type(our_field.args["input"].type)
                assert isinstance(their_input, GraphQLInputObjectType)
                for input_field in their_input.fields:
                    if input_field not in our_input.fields:  # type: ignore[union-attr]
                        missing.append(f"{name}.{field_name}({input_field})")
    return missing


def test_every_query_mutation_and_type_of_irida_next_exists_or_is_documented(app, app_config):
    ours = app_config.registry[SCHEMA].graphql_schema
    theirs = build_schema(IRIDA_NEXT.read_text())
    documented = documented_differences()
    excused = documented

    def covered(name: str) -> bool:
        # A missing type excuses its fields; a missing field its arguments.
        parts = [name, name.split("(")[0], name.split(".")[0]]
        return any(part in excused for part in parts)

    unexplained = [name for name in differences(ours, theirs) if not covered(name)]
    assert unexplained == [], (
        "IRIDA Next has these and seqcore does not; build them or list them with the reason "
        f"in docs/graphql.md: {unexplained}")


def test_the_documented_differences_are_real(app, app_config):
    """A name listed as different that seqcore now has is taken off the list."""
    ours = app_config.registry[SCHEMA].graphql_schema
    theirs = build_schema(IRIDA_NEXT.read_text())
    missing = set(differences(ours, theirs))
    stale = sorted(name for name in documented_differences()
                   if name not in missing and not any(
                       m.startswith(name + ".") or m.startswith(name + "(") for m in missing))
    assert stale == [], f"docs/graphql.md lists these as missing, but seqcore has them: {stale}"


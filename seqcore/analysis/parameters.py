"""Checking launch parameters against an analysis type's schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seqcore.framework.contrib import AnalysisType, Parameter

TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}


def _convert(parameter: Parameter, value: Any) -> tuple[Any, str | None]:
    kind = parameter.type
    try:
        if kind == "bool":
            if isinstance(value, bool):
                return value, None
            text = str(value).strip().lower()
            if text in TRUE | FALSE:
                return text in TRUE, None
            return None, "must be true or false."
        if kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                return None, "must be a whole number."
            converted: Any = int(str(value).strip()) if not isinstance(value, int) else value
        elif kind == "float":
            if isinstance(value, bool):
                return None, "must be a number."
            converted = float(value)
        elif kind == "choice":
            converted = str(value)
            if converted not in parameter.choices:
                return None, f"must be one of {', '.join(parameter.choices)}."
            return converted, None
        else:
            if isinstance(value, dict | list):
                return None, "must be text."
            return str(value), None
    except (TypeError, ValueError):
        return None, "must be a whole number." if kind == "int" else "must be a number."
    if parameter.minimum is not None and converted < parameter.minimum:
        return None, f"must be at least {parameter.minimum:g}."
    if parameter.maximum is not None and converted > parameter.maximum:
        return None, f"must be at most {parameter.maximum:g}."
    return converted, None


def check_parameters(analysis_type: AnalysisType, given: Mapping[str, Any]
                     ) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Typed values with defaults filled in, and the problems by parameter name."""
    schema = {p.name: p for p in analysis_type.parameters}
    problems: dict[str, list[str]] = {}
    for name in given:
        if name not in schema:
            problems[name] = [f"Unknown parameter; {analysis_type.name} takes: "
                              f"{', '.join(sorted(schema)) or 'none'}."]
    values: dict[str, Any] = {}
    for name, parameter in schema.items():
        if name in given and given[name] is not None:
            value, error = _convert(parameter, given[name])
            if error:
                problems[name] = [f"'{name}' {error}"]
                continue
            values[name] = value
        elif parameter.required:
            problems[name] = [f"'{name}' is required."]
        else:
            values[name] = parameter.default
    return values, problems


def as_strings(values: Mapping[str, Any]) -> dict[str, str]:
    """``inputParameters`` on the wire: every value as a string (booleans lower-case)."""
    out = {}
    for name, value in values.items():
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif value is None:
            continue
        else:
            out[name] = str(value)
    return out


def schema(analysis_type: AnalysisType) -> list[dict[str, Any]]:
    return [{"name": p.name, "type": p.type, "default": p.default, "description": p.description,
             "minimum": p.minimum, "maximum": p.maximum, "choices": list(p.choices) or None,
             "required": p.required} for p in analysis_type.parameters]

"""Field validation for request bodies and queries: every failure is a 422 naming its param."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from mockserver.core.errors import ValidationError
from mockserver.domain.models import Limits

# An address `<EMAIL>`: the whole string must match (the OpenAPI document anchors it too).
EMAIL_PATTERN = (
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"
)
EMAIL_MAX = 254
# Unicode's White_Space characters. A required string must hold a character outside them. The
# class is spelled out because engines disagree on `\s` (Python's also takes \x1c-\x1f and
# str.strip() strips them, ECMA-262's takes \ufeff), and the OpenAPI document publishes it.
WHITESPACE = r"\t\n\x0b\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK_PATTERN = f"[^{WHITESPACE}]"
_NOT_BLANK = re.compile(NOT_BLANK_PATTERN)
_EMAIL = re.compile(EMAIL_PATTERN)
MAX_SAFE_INT = 2**53 - 1

MetadataValue = str | int | bool


def json_type(value: object) -> str:
    """The JSON type of a value (`other` for what JSON cannot hold), for checks and messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object" if isinstance(value, Mapping) else "other"


type_name = json_type


def required(body: Mapping[str, Any], name: str, param: str | None = None) -> Any:
    """The value of a required field, or 422 naming it (`param` for nested fields)."""
    if name not in body or body[name] is None:
        param = param or name
        raise ValidationError(f"Missing required field '{param}'.", param=param)
    return body[name]


def string(value: Any, param: str, *, max_len: int, min_len: int = 1) -> str:
    """A string of min_len..max_len characters."""
    if not isinstance(value, str):
        raise ValidationError(f"'{param}' must be a string, not {type_name(value)}.", param=param)
    if len(value) < min_len or (min_len > 0 and _blank(value)):
        raise ValidationError(f"'{param}' must not be empty.", param=param)
    if len(value) > max_len:
        raise ValidationError(
            f"'{param}' must be at most {max_len} characters (got {len(value)}).", param=param
        )
    return value


def _blank(value: str) -> bool:
    """Whether `value` holds only whitespace (an empty string does). Every White_Space character
    is one `str.isspace()` accepts, so a first character it refuses settles it (the usual case)
    without the regex."""
    if value and not value[0].isspace():
        return False
    return _NOT_BLANK.search(value) is None


def choice(value: Any, param: str, allowed: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    options = tuple(allowed)
    if not isinstance(value, str) or value not in options:
        shown = value if isinstance(value, str) else type_name(value)
        raise ValidationError(
            f"'{param}' must be one of {', '.join(options)} (got '{shown}').", param=param
        )
    return value


def email(value: Any, param: str) -> str:
    """An email address `<EMAIL>`, at most 254 characters."""
    if not isinstance(value, str):
        raise ValidationError(
            f"'{param}' must be an email address string, not {type_name(value)}.", param=param
        )
    if len(value) > EMAIL_MAX or not _EMAIL.fullmatch(value):
        raise ValidationError(f"'{param}' is not a valid email address: '{value}'.", param=param)
    return value


def array(value: Any, param: str, *, max_items: int, min_items: int = 0) -> list[Any]:
    """A JSON array of min_items..max_items items."""
    if not isinstance(value, list):
        raise ValidationError(f"'{param}' must be an array, not {type_name(value)}.", param=param)
    if len(value) < min_items:
        raise ValidationError(f"'{param}' must have at least {min_items} item(s).", param=param)
    if len(value) > max_items:
        raise ValidationError(
            f"'{param}' must have at most {max_items} items (got {len(value)}).", param=param
        )
    return value


def obj(value: Any, param: str) -> dict[str, Any]:
    """A JSON object."""
    if not isinstance(value, dict):
        raise ValidationError(f"'{param}' must be an object, not {type_name(value)}.", param=param)
    return value


def metadata(value: Any, limits: Limits) -> dict[str, MetadataValue]:
    """Flat key/value pairs: string keys, and string, integer or boolean values."""
    pairs = obj(value, "metadata")
    if len(pairs) > limits.metadata_keys:
        raise ValidationError(
            f"'metadata' may have at most {limits.metadata_keys} keys (got {len(pairs)}).",
            param="metadata",
        )
    clean: dict[str, MetadataValue] = {}
    for key, item in pairs.items():
        param = f"metadata.{key}"
        if not key or len(key) > limits.metadata_key_len:
            raise ValidationError(
                f"Metadata keys must be 1 to {limits.metadata_key_len} characters.",
                param=param if key else "metadata",
            )
        if not key.isascii() and max(key) > "\uffff":  # a code point above the BMP
            # Keeps JCS key order (UTF-16) equal to code-point order for chain verifiers.
            raise ValidationError(
                "Metadata keys must not contain characters outside the Basic Multilingual Plane.",
                param=param,
            )
        if isinstance(item, str):
            if len(item) > limits.metadata_value_len:
                raise ValidationError(
                    f"'{param}' must be at most {limits.metadata_value_len} characters.",
                    param=param,
                )
        elif isinstance(item, bool):
            pass
        elif isinstance(item, int) or (isinstance(item, float) and item.is_integer()):
            # JSON has one number type: 2.0 is the integer 2 (as JSON Schema says too), and
            # is stored as 2 so audit events stay float-free.
            if abs(item) > MAX_SAFE_INT:
                raise ValidationError(
                    f"'{param}' must be an integer between -(2^53-1) and 2^53-1.", param=param
                )
        else:
            raise ValidationError(
                f"'{param}' must be a string, integer or boolean, not {type_name(item)}.",
                param=param,
            )
        clean[key] = int(item) if isinstance(item, float) else item
    return clean


_LIMITS = {str(number): number for number in range(1, 101)}  # `limit` values by their text


def limit(raw: str | None, *, default: int = 20, maximum: int = 100) -> int:
    """The `limit` query parameter: an integer 1..maximum."""
    if raw is None:
        return default
    value = _LIMITS.get(raw)  # the usual values, without parsing
    if value is None:
        # ASCII digits only (str.isdigit() alone takes superscripts, which int() refuses), and
        # few of them: int() of thousands of digits is slow, then refused.
        value = int(raw) if len(raw) <= 18 and raw.isascii() and raw.isdigit() else 0
    if not 1 <= value <= maximum:
        raise ValidationError(
            f"'limit' must be an integer from 1 to {maximum} (got '{raw[:40]}').", param="limit"
        )
    return value

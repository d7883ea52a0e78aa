"""Checks ubiq's readings and writings of plists against Python's plistlib.

Usage: python3 compare.py MANIFEST, where each line of MANIFEST is
    json  ORIGINAL OURS   OURS is `ubiq plist convert --to json` of ORIGINAL (typed JSON)
    plain ORIGINAL OURS   OURS is the same with --plain
    plist ORIGINAL OURS   OURS is a plist ubiq wrote from ORIGINAL (binary or XML)
    noxml ORIGINAL -      ubiq refused to write ORIGINAL as XML: plistlib must refuse too
(fields separated by tabs). For json and plain, OURS, parsed by Python's json module, must
hold the values plistlib reads from ORIGINAL; for plist, plistlib must read equal values
from both. Types count: an int is not a float, a bool is not an int, -0.0 is not 0.0.
Dates compare to the microsecond (plistlib's resolution). In a plist ubiq wrote as XML, a
one-entry dictionary {"CF$UID": n} is CoreFoundation's form of UID(n) and compares so.
Prints one line per mismatch and exits 1 if there was any.
"""
import base64
import datetime
import decimal
import json
import math
import plistlib
import re
import sys

EPOCH = datetime.datetime(1970, 1, 1)
DATE = re.compile(r"^([+-]?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z$")
MICRO = decimal.Decimal("0.000001")


def seconds_of_datetime(d):
    delta = d - EPOCH
    return decimal.Decimal(delta.days * 86400 + delta.seconds) + decimal.Decimal(delta.microseconds) / 1000000


def seconds_of_text(text):
    m = DATE.match(text)
    if not m:
        raise ValueError(f"not a date: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    whole = datetime.datetime(year, month, day, hour, minute, second) - EPOCH
    fraction = decimal.Decimal("0" + m.group(7)) if m.group(7) else decimal.Decimal(0)
    exact = decimal.Decimal(whole.days * 86400 + whole.seconds) + fraction
    return exact.quantize(MICRO, rounding=decimal.ROUND_HALF_EVEN)


def same_real(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def compare(theirs, ours, style, path="/"):
    """None when `ours` (JSON-parsed, or plistlib-read for style 'plist') stands for `theirs`."""
    def bad(why):
        return f"{path}: {why} (plistlib {theirs!r}, ours {ours!r})"[:400]

    tagged = style == "json" and isinstance(ours, dict) and len(ours) == 1 and next(iter(ours)).startswith("$")
    tag, inner = (next(iter(ours.items())) if tagged else (None, None))
    if style == "plist" and isinstance(theirs, plistlib.UID) and isinstance(ours, dict) and list(ours) == ["CF$UID"]:
        ours = plistlib.UID(ours["CF$UID"])
    if isinstance(theirs, bool):
        return None if type(ours) is bool and ours == theirs else bad("boolean differs")
    if isinstance(theirs, int):
        return None if type(ours) is int and ours == theirs else bad("integer differs")
    if isinstance(theirs, float):
        if tag == "$real":
            text = {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(inner)
            return None if text and same_real(theirs, float(text)) else bad("real differs")
        return None if type(ours) is float and same_real(theirs, ours) else bad("real differs")
    if isinstance(theirs, str):
        return None if type(ours) is str and ours == theirs else bad("string differs")
    if isinstance(theirs, bytes):
        if style == "plist":
            return None if ours == theirs else bad("data differs")
        text = inner if tag == "$data" else ours if style == "plain" else None
        return None if isinstance(text, str) and base64.b64decode(text, validate=True) == theirs else bad("data differs")
    if isinstance(theirs, datetime.datetime):
        if style == "plist":
            return None if isinstance(ours, datetime.datetime) and ours == theirs else bad("date differs")
        text = inner if tag == "$date" else ours if style == "plain" else None
        return None if isinstance(text, str) and seconds_of_text(text) == seconds_of_datetime(theirs) else bad("date differs")
    if isinstance(theirs, plistlib.UID):
        if style == "plist":
            return None if isinstance(ours, plistlib.UID) and ours.data == theirs.data else bad("UID differs")
        number = inner if tag == "$uid" else ours if style == "plain" else None
        return None if type(number) is int and number == theirs.data else bad("UID differs")
    if theirs is None:
        return None if ours is None else bad("null differs")
    if isinstance(theirs, list):
        if type(ours) is not list or len(ours) != len(theirs):
            return bad("array differs")
        for i, (a, b) in enumerate(zip(theirs, ours)):
            found = compare(a, b, style, f"{path}{i}/")
            if found:
                return found
        return None
    if isinstance(theirs, dict):
        if tag == "$dict":
            ours = inner
        elif tagged:
            return bad(f"typed {tag} where plistlib has a dictionary")
        if not isinstance(ours, dict) or set(ours) != set(theirs):
            return bad("dictionary keys differ")
        for key in theirs:
            found = compare(theirs[key], ours[key], style, f"{path}{key}/")
            if found:
                return found
        return None
    return bad(f"unexpected plistlib type {type(theirs).__name__}")


def without_uids(value):
    """UIDs as integers: plistlib cannot write a UID to XML at all (ubiq writes CF$UID)."""
    if isinstance(value, plistlib.UID):
        return value.data
    if isinstance(value, list):
        return [without_uids(v) for v in value]
    if isinstance(value, dict):
        return {k: without_uids(v) for k, v in value.items()}
    return value


def main():
    failures = 0
    lines = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    for style, original, ours_path in lines:
        with open(original, "rb") as f:
            theirs = plistlib.load(f)
        try:
            if style == "noxml":
                try:
                    plistlib.dumps(without_uids(theirs), fmt=plistlib.FMT_XML)
                    problem = "ubiq refused XML that plistlib writes"
                except (ValueError, TypeError):
                    problem = None
            elif style == "plist":
                with open(ours_path, "rb") as f:
                    ours = plistlib.load(f)
            else:
                with open(ours_path, encoding="utf-8") as f:
                    ours = json.load(f)
            if style != "noxml":
                problem = compare(theirs, ours, style)
        except Exception as error:
            problem = f"{type(error).__name__}: {error}"
        if problem:
            failures += 1
            print(f"mismatch {style} {original}: {problem}")
    print(f"compared {len(lines)} conversions, {failures} differ from plistlib")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

"""Extracts the plists of CPython's Lib/test/test_plistlib.py into this folder.

Runs every test of that module with plistlib.load and plistlib.dump patched to record
each plist read or written; one plistlib reads is written to valid/, one it refuses to
invalid/. That is every plist of the module: its literal samples (TESTDATA, the keyed
archive, the hand-made binary and XML snippets) and every file its tests write with
plistlib.dumps. Files are named by the test that first read them and the
first 10 hex digits of their SHA-256, so a rerun on the same CPython gives the same files.

Left out, each with its reason in EXCLUDED.txt: values that contain themselves
(test_cycles; no JSON or tree can hold them), the lone 0x0F "fill" byte as an object
(plistlib reads it as b''; CoreFoundation refuses it), and the 100,000-deep array that
exceeds plistlib's own recursion limit (test_deep_nesting; neither valid nor malformed).

Usage: python3 extract.py   (rewrites valid/, invalid/ and EXCLUDED.txt here)
"""
import hashlib
import io
import os
import plistlib
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def contains_itself(value, seen=()):
    if isinstance(value, (list, dict)):
        if any(value is s for s in seen):
            return True
        children = value.values() if isinstance(value, dict) else value
        return any(contains_itself(c, seen + (value,)) for c in children)
    return False


def contains_fill(data):
    """A binary plist whose object table holds a 0x0F marker as an object."""
    if not data.startswith(b"bplist00") or len(data) < 40:
        return False
    offset_size, ref_size = data[-26], data[-25]
    count = int.from_bytes(data[-24:-16], "big")
    table = int.from_bytes(data[-8:], "big")
    for i in range(count):
        start = table + i * offset_size
        offset = int.from_bytes(data[start:start + offset_size], "big")
        if offset < len(data) and data[offset] == 0x0F:
            return True
    return False


def main():
    from test import test_plistlib

    records = {}  # sha -> (name, data, ok, reason)
    current = {"test": "module"}
    real_load = plistlib.load
    real_dump = plistlib.dump

    def recording_load(fp, *args, **kwargs):
        data = fp.read()
        try:
            value = real_load(io.BytesIO(data), *args, **kwargs)
        except RecursionError:
            record(data, True, "plistlib's recursion limit (test_deep_nesting): too deep for it, not malformed")
            raise
        except BaseException as error:
            record(data, False, type(error).__name__)
            raise
        reason = None
        if contains_itself(value):
            reason = "contains itself (test_cycles): no tree or JSON holds it"
        elif contains_fill(data):
            reason = "a 0x0F fill byte as an object: plistlib reads b'', CoreFoundation refuses it"
        record(data, True, reason)
        return value

    def recording_dump(value, fp, *args, **kwargs):
        # What the tests write is a sample too, whether or not they read it back.
        out = io.BytesIO()
        real_dump(value, out, *args, **kwargs)
        fp.write(out.getvalue())
        try:
            recording_load(io.BytesIO(out.getvalue()))
        except BaseException:
            pass

    def record(data, ok, reason):
        sha = hashlib.sha256(data).hexdigest()
        if sha not in records:
            records[sha] = (current["test"], data, ok, reason)

    plistlib.load = recording_load
    plistlib.dump = recording_dump
    suite = unittest.defaultTestLoader.loadTestsFromModule(test_plistlib)
    workdir = tempfile.mkdtemp()
    cwd = os.getcwd()
    os.chdir(workdir)  # the tests write TESTFN into the current folder
    try:
        for test in iterate(suite):
            current["test"] = test.id().split(".")[-1]
            test.run(unittest.TestResult())
    finally:
        os.chdir(cwd)
        shutil.rmtree(workdir, ignore_errors=True)
        plistlib.load = real_load
        plistlib.dump = real_dump

    for sub in ("valid", "invalid"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
        os.makedirs(os.path.join(HERE, sub))
    excluded = []
    counts = {"valid": 0, "invalid": 0}
    for sha, (test, data, ok, reason) in sorted(records.items(), key=lambda r: (r[1][0], r[0])):
        name = f"{test}-{sha[:10]}.plist"
        if ok and reason:
            excluded.append(f"{name}\t{reason}")
            continue
        sub = "valid" if ok else "invalid"
        with open(os.path.join(HERE, sub, name), "wb") as f:
            f.write(data)
        counts[sub] += 1
    with open(os.path.join(HERE, "EXCLUDED.txt"), "w") as f:
        f.write("# Plists plistlib reads that are not used as valid samples, and why.\n")
        f.write("".join(line + "\n" for line in excluded))
    print(f"{counts['valid']} valid, {counts['invalid']} invalid, {len(excluded)} excluded "
          f"(CPython {sys.version.split()[0]})")


def iterate(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from iterate(item)
        else:
            yield item


if __name__ == "__main__":
    main()

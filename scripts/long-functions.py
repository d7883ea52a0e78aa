#!/usr/bin/env python3
"""Lists Swift functions, initializers and accessors longer than a limit, longest first.

    scripts/long-functions.py                  # Sources/Ubiquity*, over 80 lines
    scripts/long-functions.py --limit 40 Sources/UbiquitySync

A body is found by brace matching from the declaration, with string literals and line comments
left out; a declaration's count runs from its first line to its closing brace.
"""
import argparse
import glob
import os
import re

DECLARATION = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*'
    r'(?:(?:public|package|private|fileprivate|internal|static|override|mutating|nonmutating|final|class|convenience|required)\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript)')
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def body_length(lines, start):
    """Lines from `start` to the brace closing the first one opened there or after."""
    depth, opened = 0, False
    for index in range(start, len(lines)):
        code = STRING.sub('""', lines[index]).split('//')[0]
        for char in code:
            if char == '{':
                depth, opened = depth + 1, True
            elif char == '}':
                depth -= 1
        if opened and depth <= 0:
            return index - start + 1
        if not opened and index > start and code.strip().startswith(('func ', 'var ', 'let ', '}')):
            return 0  # a requirement without a body
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--limit', type=int, default=80)
    parser.add_argument('roots', nargs='*')
    arguments = parser.parse_args()
    roots = arguments.roots or sorted(glob.glob('Sources/Ubiquity*'))
    found = []
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                if not name.endswith('.swift'):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding='utf-8') as file:
                    lines = file.read().split('\n')
                for index, line in enumerate(lines):
                    match = DECLARATION.match(line)
                    if match and (length := body_length(lines, index)) > arguments.limit:
                        found.append((length, f'{path}:{index + 1}', match.group(1)))
    for length, place, name in sorted(found, key=lambda item: (-item[0], item[1])):
        print(f'{length:5d}  {place}  {name}')


if __name__ == '__main__':
    main()

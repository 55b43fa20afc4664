#!/usr/bin/env python3
"""Doxygen INPUT_FILTER: reads the abseil-style comments of docshard's public
headers as documentation.

The headers document each declaration with plain `//` lines directly above it
(or a `//` comment after it on the same line). Doxygen only reads `///`, so
this filter rewrites, in the text Doxygen sees (never the files):
  - a run of `//` lines directly followed by a code line -> `///` lines
    (a run followed by a blank line, e.g. a file's opening note, stays plain);
  - `code;  // note` (also after `,`, `{` or `}`) -> `code;  ///< note`;
  - in those comments, a placeholder like `dbs/<db>/colls/<coll>` is escaped
    so that Doxygen does not take it for an HTML tag, and `@` and `\` so that
    they are not read as commands.
Line numbers are unchanged, so warnings point at the right line.
"""
import re
import sys

COMMENT = re.compile(r"^(\s*)//(?!/)(.*)$")
PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9_])<([a-z][^<>]*)>")
TRAILING = re.compile(r"^(\s*[^/\s}].*?[;,{}])(\s+)//(?![/<])(.*)$")
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def escape(text):
    # `@` and `\` start Doxygen commands; these comments use neither.
    text = text.replace("\\", "\\\\").replace("@", "\\@")
    return PLACEHOLDER.sub(r"\\<\1\\>", text)


def convert(lines):
    out = list(lines)
    i = 0
    while i < len(lines):
        if COMMENT.match(lines[i]):
            j = i
            while j < len(lines) and COMMENT.match(lines[j]):
                j += 1
            nxt = lines[j].strip() if j < len(lines) else ""
            # Documents the next declaration: not blank, not a preprocessor
            # line, not a closing brace or an access label.
            if nxt and not nxt.startswith(("#", "}", "public:", "private:", "protected:")):
                for k in range(i, j):
                    m = COMMENT.match(lines[k])
                    out[k] = f"{m.group(1)}///{escape(m.group(2))}"
            i = j
            continue
        m = TRAILING.match(lines[i])
        # Only a `//` outside string literals: the code before it may hold
        # whole literals (`= "FF";  // note`), not an open one.
        if m and '"' not in STRING.sub("", m.group(1)):
            out[i] = f"{m.group(1)}{m.group(2)}///<{escape(m.group(3))}"
        i += 1
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(convert(lines)))


if __name__ == "__main__":
    main()

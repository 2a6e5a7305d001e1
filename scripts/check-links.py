#!/usr/bin/env python3
"""Checks every link of the documentation (run by scripts/test.sh; a few hundred milliseconds, no network).

Documents: the top-level Markdown files (README.md, CONTRIBUTING.md, CHANGELOG.md), Docs/, Examples/README.md,
Benchmarks/README.md and every DocC article (Sources/*/Docs.docc, Plugins/*/Docs.docc).

- A relative link `[text](path)` or `[text](path#anchor)` must name a file or directory of the repository, and
  its anchor a heading of that Markdown file (GitHub's anchors: lowercase, punctuation dropped, spaces as `-`).
  A link `[text](#anchor)` must name a heading of the same document.
- A DocC link `<doc:Name>` must name an article of the same catalog.
- Every article and guide must be linked from README.md, so it is one click away from the landing page.
- Links to other sites (http, https, mailto) are not fetched.

Exit status 1 with one line per broken link, naming the document, its line and what to fix.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INLINE_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
DOC_LINK = re.compile(r"<doc:([A-Za-z0-9_\-]+)(?:#[^>]*)?>")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1")


def documents():
    found = [f for f in os.listdir(ROOT) if f.endswith(".md")]
    for folder in ["Docs", "Sources", "Plugins"]:
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                path = os.path.relpath(os.path.join(directory, name), ROOT)
                if name.endswith(".md") and (folder == "Docs" or ".docc" in path):
                    found.append(path)
    for extra in ["Examples/README.md", "Benchmarks/README.md"]:
        if os.path.exists(os.path.join(ROOT, extra)):
            found.append(extra)
    return sorted(found)


def slug(heading):
    text = re.sub(r"<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path):
    """(line number, text) of the lines outside code fences, with inline code spans blanked out."""
    fence = None
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            stripped = line.strip()
            if stripped.startswith("///"):
                stripped = stripped[3:].strip()
            marker = re.match(r"(`{3,}|~{3,})", stripped)
            if marker:
                if fence is None:
                    fence = marker.group(1)
                elif stripped.startswith(fence):
                    fence = None
                continue
            if fence is None:
                yield number, CODE_SPAN.sub("", line.rstrip("\n"))


def heading_anchors(path):
    """Anchors of a document's headings, read with code spans kept (GitHub keeps their text)."""
    seen, result, fence = {}, set(), None
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        for line in file:
            stripped = line.strip()
            marker = re.match(r"(`{3,}|~{3,})", stripped)
            if marker:
                fence = marker.group(1) if fence is None else (None if stripped.startswith(fence) else fence)
                continue
            heading = re.match(r"#{1,6}\s+(.*)", line) if fence is None else None
            if heading:
                base = slug(heading.group(1).replace("`", ""))
                count = seen.get(base, 0)
                seen[base] = count + 1
                result.add(base if count == 0 else f"{base}-{count}")
    return result


def main():
    problems = []
    linked_from_readme = set()
    for document in documents():
        directory = os.path.dirname(document)
        catalog = next((part for part in reversed(document.split(os.sep)) if part.endswith(".docc")), None)
        for number, line in prose_lines(document):
            for match in INLINE_LINK.finditer(line):
                target = match.group(1) or match.group(2)
                if re.match(r"^[a-z][a-z0-9+.\-]*:", target):
                    continue
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(directory, path)) if path else document
                if not os.path.exists(os.path.join(ROOT, resolved)):
                    problems.append(f"{document}:{number}: the link '{target}' names {resolved}, which does not exist: fix the path or restore the file")
                    continue
                if document == "README.md":
                    linked_from_readme.add(resolved)
                if anchor and resolved.endswith(".md") and anchor not in heading_anchors(resolved):
                    problems.append(f"{document}:{number}: the link '{target}' names the anchor #{anchor}, which no heading of {resolved} has: link to an existing heading")
            if catalog:
                catalog_directory = document[: document.index(catalog) + len(catalog)]
                for match in DOC_LINK.finditer(line):
                    name = match.group(1)
                    articles = [f[:-3] for f in os.listdir(os.path.join(ROOT, catalog_directory)) if f.endswith(".md")]
                    if name not in articles:
                        problems.append(f"{document}:{number}: <doc:{name}> names no article of {catalog_directory}: link an article of the same catalog, or name it as text")
    # One click from the landing page: every article that is not a module's landing page, and every guide.
    for document in documents():
        name = os.path.basename(document)[:-3]
        in_catalog = ".docc" in document
        is_landing = in_catalog and document.split(os.sep)[-3] == name if in_catalog else False
        if document in ("README.md", "CHANGELOG.md") or is_landing:
            continue
        if document not in linked_from_readme:
            problems.append(f"{document}: README.md does not link to it: add it to the README's Documentation table")
    for problem in problems:
        print(problem)
    checked = len(documents())
    if problems:
        print(f"check-links: {len(problems)} broken or missing link(s) in {checked} documents")
        return 1
    print(f"check-links: every link of {checked} documents resolves; every article is linked from README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A minimal element tree that renders both as law.go.kr XML (with CDATA) and as law.go.kr JSON.

ElementTree cannot write CDATA sections, and the JSON shape needs the same tree folded the way
law.go.kr folds it: attributes become keys, a leaf with attributes becomes {"content": …},
a tag that occurs once is an object (not a one-element list).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


@dataclass(slots=True)
class Node:
    tag: str
    text: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    cdata: bool = False

    def add(self, tag: str, text: str | int | None = None, *, cdata: bool = False, **attrs: str) -> Node:
        child = Node(tag, None if text is None else str(text), attrs, [], cdata)
        self.children.append(child)
        return child

    def xml_lines(self, depth: int = 0) -> list[str]:
        pad = "  " * depth
        attrs = "".join(f" {name}={quoteattr(value)}" for name, value in self.attrs.items())
        if self.children:
            inner = [line for child in self.children for line in child.xml_lines(depth + 1)]
            return [f"{pad}<{self.tag}{attrs}>", *inner, f"{pad}</{self.tag}>"]
        if self.text is None:
            return [f"{pad}<{self.tag}{attrs}/>"]
        if self.cdata and "]]>" not in self.text:
            body = f"<![CDATA[{self.text}]]>"
        else:
            body = escape(self.text)
        return [f"{pad}<{self.tag}{attrs}>{body}</{self.tag}>"]

    def json_value(self) -> object:
        if not self.children:
            if self.attrs:
                return {"content": self.text or "", **self.attrs}
            return self.text or ""
        folded: dict[str, object] = dict(self.attrs)
        for child in self.children:
            value = child.json_value()
            if child.tag not in folded:
                folded[child.tag] = value
            elif isinstance(folded[child.tag], list):  # values are str or dict, so a list is ours
                folded[child.tag].append(value)  # type: ignore[union-attr]
            else:
                folded[child.tag] = [folded[child.tag], value]
        return folded


def search_list(tag: str, target: str, section: str, total: int) -> Node:
    """The head every lawSearch.do list shares: target, 키워드, section, totalCnt, page."""
    root = Node(tag)
    for name, value in (("target", target), ("키워드", "*"), ("section", section), ("totalCnt", total), ("page", 1)):
        root.add(name, value)
    return root


def write_xml(path: Path, root: Node) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + "\n".join(root.xml_lines()) + "\n"
    path.write_text(text, encoding="utf-8")


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def json_document(root: Node) -> dict[str, object]:
    return {root.tag: root.json_value()}

#!/usr/bin/env python3
"""Drives `kb mcp` with the official MCP Python SDK (PyPI `mcp`), as an MCP
client application would: the SDK starts the server over stdio, negotiates
the protocol, lists the tools and calls them, and checks each structured
result against the tool's output schema itself (ClientSession.call_tool
raises when one does not conform).

Usage: python tests/mcp_sdk_client.py KB_BINARY DATA_DIR
The knowledge base in DATA_DIR must hold the end-to-end tests' fixture tree
(a "Git Admin Guide" with an "Installation" section, text about canoes).
tests/e2e/mcp.rs runs it with the venv scripts/prepare_py_tools.sh makes.
Prints one line per check; exits 1 on the first failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import jsonschema
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

TOOLS = ["search", "show", "outline", "open", "list", "sources", "tags", "status"]

# The format values JSON Schema itself defines (draft 2020-12).
STANDARD_FORMATS = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
    "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
    "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
}


def portability_problems(schema: Any, path: str = "") -> list[str]:
    """What strict clients (MCP Inspector --strict) report in a schema: a
    `type` that is an array, a `format` JSON Schema does not define."""
    found = []
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), list):
            found.append(f"{path}: type {schema['type']}")
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt not in STANDARD_FORMATS:
            found.append(f"{path}: format {fmt}")
        for k, v in schema.items():
            found += portability_problems(v, f"{path}/{k}")
    elif isinstance(schema, list):
        for i, v in enumerate(schema):
            found += portability_problems(v, f"{path}/{i}")
    return found


def descriptions(schema: Any) -> list[str]:
    out = []
    if isinstance(schema, dict):
        if isinstance(schema.get("description"), str):
            out.append(schema["description"])
        for v in schema.values():
            out += descriptions(v)
    elif isinstance(schema, list):
        for v in schema:
            out += descriptions(v)
    return out


def check(ok: bool, what: str, detail: Any = "") -> None:
    if not ok:
        raise AssertionError(f"{what}: {detail}")
    print(f"ok: {what}", flush=True)


def text_of(result: CallToolResult) -> Any:
    block = result.content[0]
    assert isinstance(block, TextContent), block
    return json.loads(block.text)


async def call(
    session: ClientSession, schemas: dict[str, dict], name: str, args: dict[str, Any]
) -> Any:
    """A successful call: the SDK has already validated its structured
    content against the output schema; the JSON text must be the same
    object, and valid against the schema too."""
    result = await session.call_tool(name, args)
    assert isinstance(result, CallToolResult), result
    check(not result.is_error, f"{name} {args} succeeds", result.content)
    value = text_of(result)
    check(result.structured_content == value, f"{name}: structuredContent is the JSON text")
    jsonschema.validate(value, schemas[name])
    return value


async def run(kb: str, data_dir: str) -> None:
    server = StdioServerParameters(
        command=kb, args=["--data-dir", data_dir, "mcp"], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "kb", "initialize: server kb", init.server_info)
            check(
                init.protocol_version >= "2025-06-18",
                "a protocol with structured results is negotiated",
                init.protocol_version,
            )
            check("0.4" in (init.instructions or ""), "instructions give the weak cosine")

            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check(names == TOOLS, "tools/list names the read-only tools", names)
            schemas: dict[str, dict] = {}
            for tool in listed.tools:
                check(bool(tool.title), f"{tool.name} has a title", tool.title)
                schema = tool.output_schema
                check(
                    isinstance(schema, dict) and schema.get("type") == "object",
                    f"{tool.name} has an object outputSchema",
                    schema,
                )
                jsonschema.Draft202012Validator.check_schema(schema)
                problems = portability_problems(schema) + portability_problems(tool.input_schema)
                check(not problems, f"{tool.name}: portable schemas", problems)
                cli = [d for d in descriptions(tool.input_schema) + descriptions(schema) if "over MCP" in d]
                check(not cli, f"{tool.name}: no command-line wording", cli)
                check(
                    '"null"' not in json.dumps(tool.input_schema),
                    f"{tool.name}: no nullable input types",
                    tool.input_schema,
                )
                schemas[tool.name] = schema

            # Integer arguments, then the same as strings (MCP Inspector's way).
            found = await call(session, schemas, "search", {"query": "canoe", "top": 2})
            check(found["returned"] == 2, "search top 2", found)
            as_strings = await call(session, schemas, "search", {"query": "canoe", "top": "2"})
            ids = lambda v: [r["chunk_id"] for r in v["results"]]  # noqa: E731
            check(ids(as_strings) == ids(found), "top as a string: the same results")

            git = await call(session, schemas, "search", {"query": "install git", "top": 1})
            doc = git["results"][0]["source"]["document_id"]
            chunk = git["results"][0]["chunk_id"]
            shown = await call(session, schemas, "show", {"chunk_id": chunk, "context": 1})
            check(shown["chunk"]["chunk_id"] == chunk, "show a chunk", shown)
            shown = await call(
                session, schemas, "show", {"chunk_id": str(chunk), "context": "1"}
            )
            check(shown["chunk"]["chunk_id"] == chunk, "show a chunk, ids as strings")
            section = await call(
                session, schemas, "show", {"document": doc, "section": "Installation"}
            )
            check("content" in section, "show a section", section)

            outline = await call(session, schemas, "outline", {"document": doc})
            headings = [i["text"] for i in outline["items"]]
            check("Installation" in headings, "outline lists the headings", headings)
            outline = await call(session, schemas, "outline", {"document": str(doc), "level": "1"})
            check(all(i["level"] <= 1 for i in outline["items"]), "outline level as a string")

            opened = await call(session, schemas, "open", {"document": doc, "max_lines": 2})
            check(opened["last_line"] - opened["first_line"] <= 1, "open max_lines 2", opened)

            page = await call(session, schemas, "list", {"limit": 1})
            check(
                len(page["items"]) == 1 and page["total"] >= 2 and page["next_offset"] == 1,
                "list: a page, its total and the next offset",
                page,
            )
            rest = await call(session, schemas, "list", {"offset": "1", "limit": "1000"})
            check(
                len(rest["items"]) == page["total"] - 1 and rest["next_offset"] is None,
                "list: the last page",
                rest,
            )
            await call(session, schemas, "tags", {})
            await call(session, schemas, "status", {})
            tree = await call(session, schemas, "sources", {"depth": "1"})
            check(tree["documents"] >= 2 and tree["entries"], "sources: the tree", tree)
            # A search inside one document (by id, as a string) and by path glob.
            inside = await call(
                session, schemas, "search", {"query": "install", "document": [str(doc)]}
            )
            check(
                all(r["source"]["document_id"] == doc for r in inside["results"]),
                "search inside one document",
                inside,
            )
            by_path = await call(session, schemas, "search", {"query": "git", "path": ["*.md"]})
            check(
                all(r["source"]["path"].endswith(".md") for r in by_path["results"]),
                "search by path glob",
                by_path,
            )

            occurrence = next(t for t in listed.tools if t.name == "show").input_schema[
                "properties"
            ]["occurrence"]
            check(occurrence.get("minimum") == 1, "show: occurrence from 1", occurrence)
            # One value where a list is allowed, and a file name from the
            # server's working directory (not the documents' folder).
            one = await call(
                session,
                schemas,
                "search",
                {"query": "install", "document": "git.md", "tags": "git", "path": "*.md"},
            )
            check(
                one["results"]
                and all(r["source"]["path"].endswith("/git.md") for r in one["results"]),
                "search: document, tags and path as single values",
                one,
            )
            named = await call(session, schemas, "outline", {"document": "git.md"})
            check(named["items"], "outline: a document by its file name", named)

            # Errors: a tool error result, and a protocol error.
            bad = await session.call_tool("search", {"query": "x", "top": "ten"})
            assert isinstance(bad, CallToolResult)
            envelope = text_of(bad)
            check(
                bad.is_error and envelope["error"]["code"] == "INVALID_PARAMS",
                "a bad argument is an error result",
                envelope,
            )
            check(
                envelope["error"]["details"]["issues"][0]["field"] == "top",
                "the error names the field",
                envelope,
            )
            missing = await session.call_tool("show", {"document": doc, "section": "Instalation"})
            assert isinstance(missing, CallToolResult)
            envelope = text_of(missing)
            check(
                missing.is_error and envelope["error"]["suggestions"] == ["Installation"],
                "a missing section suggests the close heading",
                envelope,
            )
            try:
                await session.call_tool("frobnicate", {})
            except MCPError as e:
                check(e.error.code == -32602, "an unknown tool is a -32602 error", e.error)
            else:
                check(False, "an unknown tool is an error")


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        asyncio.run(run(sys.argv[1], sys.argv[2]))
    except AssertionError as e:
        print(f"FAILED: {e}", flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Python's official MCP SDK (pip's `mcp`) against Tributary's /mcp: lists the tools, calls each call given as JSON
in argv[1] (a list of [tool, arguments]), and prints one JSON document: the tools with their schemas and each call's
result as the SDK read it. The test (mcp-python.server.test.ts) compares it with the HTTP API's answers.

TRIBUTARY_URL: the server's origin; TRIBUTARY_API_KEY: sent as x-api-key when set.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client


async def main() -> None:
    calls = json.loads(sys.argv[1])
    key = os.environ.get("TRIBUTARY_API_KEY")
    headers = {"x-api-key": key} if key else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(os.environ["TRIBUTARY_URL"] + "/mcp", http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                results = []
                for name, arguments in calls:
                    result = await session.call_tool(name, arguments)
                    results.append({
                        "tool": name,
                        "isError": bool(result.is_error),
                        "structuredContent": result.structured_content,
                        "text": [c.text for c in result.content if c.type == "text"],
                    })
    json.dump({
        "protocolVersion": init.protocol_version,
        "server": init.server_info.name,
        "tools": [{"name": t.name, "inputSchema": t.input_schema, "outputSchema": t.output_schema} for t in tools.tools],
        "results": results,
    }, sys.stdout)


asyncio.run(main())

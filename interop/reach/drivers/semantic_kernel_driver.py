"""Measures what Semantic Kernel (`semantic-kernel[mcp]`) hands the model for one call of the financial tool.

No model is involved: the tool is invoked through the kernel from an `MCPStdioPlugin`, the result becomes a
`FunctionResultContent` as automatic function calling makes it, and the content of the tool message it turns
into (`to_chat_message_content().to_dict()`) is reported.
"""

from __future__ import annotations

from typing import Any

from _common import failure, run, text_parts
from semantic_kernel import Kernel  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.mcp import MCPStdioPlugin  # pyright: ignore[reportMissingImports]
from semantic_kernel.contents import FunctionCallContent, FunctionResultContent  # pyright: ignore[reportMissingImports]

PLUGIN = "financial"


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    async with MCPStdioPlugin(name=PLUGIN, command=job["command"], args=job["args"]) as plugin:
        kernel = Kernel()
        kernel.add_plugin(plugin)
        call = FunctionCallContent(id="call-1", function_name=tool_name, plugin_name=PLUGIN, arguments={})
        try:
            result = await kernel.invoke(plugin_name=PLUGIN, function_name=tool_name)
        except Exception as error:  # function calling hands the model the error's text instead
            return failure(error)
    content = FunctionResultContent.from_function_call_content_and_result(call, result)
    message = content.to_chat_message_content().to_dict()["content"]
    return {"payload": message, "parts": text_parts(message)}


if __name__ == "__main__":
    run(_observe, "semantic-kernel", "mcp")

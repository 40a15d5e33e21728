"""The reference runtime: a small operational host for subagent delegation controls, written to
be read beside the rules (docs/rules.md vocabulary)."""

from .agent import Agent
from .delegation import ChildStart, Composition, Resume, Run, structured_output_tool
from .descriptor import Descriptor, check_output_schema
from .events import EventLog, LifecycleEvent
from .host import Host
from .loop import AgentLoop, RunResult
from .model import Message, Model, ModelReply, ModelRequest, ScriptedModel, ToolCall
from .prompt import PromptSection, assemble_sections
from .provider import AcpProvider, InProcessProvider, Provider, ProviderRegistry, default_providers
from .registry import ToolRegistry
from .resolver import ResolvedTool, Resolver
from .scope import Scope, parse_mode
from .store import SessionStore, StoredHeader
from .tool import AbortSignal, ExecutionContext, Tool, ToolBody, ToolResult, ToolSchema

__all__ = [
    "AbortSignal", "AcpProvider", "Agent", "AgentLoop", "ChildStart", "Composition", "Descriptor",
    "EventLog", "ExecutionContext", "Host", "InProcessProvider", "LifecycleEvent", "Message",
    "Model", "ModelReply", "ModelRequest", "PromptSection", "Provider", "ProviderRegistry",
    "ResolvedTool", "Resolver", "Resume", "Run", "RunResult", "Scope", "ScriptedModel",
    "SessionStore", "StoredHeader", "Tool", "ToolBody", "ToolCall", "ToolRegistry", "ToolResult",
    "ToolSchema", "assemble_sections", "check_output_schema", "default_providers", "parse_mode",
    "structured_output_tool",
]

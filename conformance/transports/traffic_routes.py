"""The model endpoint and the target of the adapters that see a runtime only from its model
traffic (traffic.py): one :class:`TrafficProxy` on 127.0.0.1 for all of a target's deployments,
one :class:`TrafficRoute` per deployment below ``/p/{deployment}``, and the
:class:`TrafficTarget` that names them ``d1``, ``d2``, ...
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Protocol, TypeVar
from urllib.parse import urlsplit

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    ModelRequest,
    ProviderInfo,
    TargetInfo,
)
from subagent_tck.conformance.transports.httpd import Answer, Request, ServerThread
from subagent_tck.spec import (
    Capability,
    Edition,
    ErrorCode,
    TckError,
)


def js_name(name: str) -> str:
    """``name`` as a runtime's JavaScript cleans a tool or server name for the wire: each
    character outside ``[A-Za-z0-9_-]`` becomes ``_``, counted in UTF-16 units (a pattern
    without the ``u`` flag: a character outside the BMP gives two). Claude Code 2.1.332 names an
    MCP tool ``mcp__`` + this of the server + ``__`` + this of the tool; opencode 1.18.33
    ``SERVER_`` + this of the tool. Two kit names may meet in one wire name."""
    return re.sub(r"[^A-Za-z0-9_-]", lambda m: "_" * (2 if ord(m.group()) > 0xFFFF else 1),
                  name)


def slug(value: str) -> str:
    """``value`` as part of a file name: lower case, ``[a-z0-9-]``, at most 40 characters."""
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:40] or "preset"


def provider_info(name: str, depth_limit: bool = False, model_selection: bool = False,
                  spawn_policy: bool = False, delegation_tool: str | None = None
                  ) -> ProviderInfo:
    """The one provider: the runtime's subagent tool called with a project agent, whose
    definition carries the persona and the tool filter (a preset); ``depth_limit`` where the
    runtime has a depth setting the start's ``maxDepth`` is given as; ``model_selection``
    where the definition carries a model too, ``spawn_policy`` where it carries which agents
    the child may start (docs/driver-api.md#spawn-policies-and-models); ``delegation_tool``:
    the runtime's own tool a model starts the provider's children with, named where what it
    offers is judged (docs/rules.md#SP-02)."""
    capabilities = [Capability.PERSONA, Capability.TOOL_FILTER]
    return ProviderInfo(name=name, delegationTool=delegation_tool,
                        capabilities=capabilities + (
        [Capability.DEPTH_LIMIT] if depth_limit else []) + (
        [Capability.MODEL_SELECTION] if model_selection else []) + (
        [Capability.SPAWN_POLICY] if spawn_policy else []))


class TrafficRoute:
    """One deployment's side of the model endpoint: where the kit's gateway is, each agent's
    last request and which agent was last told to call each kit tool."""

    def __init__(self, gateway_url: str) -> None:
        parts = urlsplit(gateway_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.base = parts.path.rstrip("/")
        self.lock = threading.Lock()
        self.last: dict[str, ModelRequest] = {}  # agent -> its last request (markers cut)
        self.told: dict[str, str] = {}  # kit tool name -> the agent last told to call it
        #: called (the lock not held) with an agent and its request when the adapter sees the
        #: agent's first request (the deployment publishes a child then)
        self.first: Callable[[str, ModelRequest], None] | None = None

    def record(self, agent: str, request: ModelRequest) -> None:
        """``request`` is ``agent``'s last one (what it sees); its first is announced."""
        with self.lock:
            first = agent not in self.last
            self.last[agent] = request
        if first and self.first is not None:
            self.first(agent, request)

    def post(self, path: str, data: bytes) -> Answer:
        """``data`` posted to the kit's gateway at ``path`` (below its base); its answer as it
        came, with the headers a runtime's retry logic reads. OSError when it is unreachable."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=300)
        try:
            connection.request("POST", self.base + path, body=data,
                               headers={"content-type": "application/json"})
            answer = connection.getresponse()
            return Answer(answer.status, answer.read(),
                          answer.getheader("content-type", "application/json"),
                          tuple((k, v) for k, v in answer.getheaders()
                                if k.lower() in ("x-should-retry", "cache-control")))
        finally:
            connection.close()

    def relay(self, path: str, data: bytes, agent: str | None,
              error: Callable[[int, str], Answer],
              rename: Callable[[bytes, str], tuple[bytes, list[str]]] | None) -> Answer:
        """``data`` posted to the kit's gateway at ``path`` (:meth:`post`) and its answer
        relayed: a 200's tool calls renamed by ``rename`` (the answer's body and content type
        -> the body as the runtime reads it and the kit names of its calls, which ``agent`` was
        told to call: :meth:`tell`), anything else as it came; an unreachable gateway is a 502
        as ``error`` words it."""
        try:
            answer = self.post(path, data)
        except OSError as exc:
            return error(502, f"the kit's model gateway is unreachable: {exc}")
        if answer.status != 200 or rename is None:
            return answer
        body, names = rename(answer.body, answer.content_type)
        self.tell(agent, names)
        return answer._replace(body=body)

    def tell(self, agent: str | None, names: list[str]) -> None:
        """``agent`` (when the request was attributed) was told to call the kit tools
        ``names``: a body of one of them that runs from now on is taken as its
        (``invocations``)."""
        if agent is not None:
            with self.lock:
                for name in names:
                    self.told[name] = agent


R = TypeVar("R", bound=TrafficRoute)


class TrafficProxy(ABC, Generic[R]):
    """Serves every deployment's route on 127.0.0.1 below ``/p/{deployment}``. A subclass says
    which paths are routes (``handle``); ``error`` words an error as the runtime's client reads
    it (an Anthropic or an OpenAI error body)."""

    def __init__(self, name: str, error: Callable[[int, str], Answer], suffix: str = "") -> None:
        self._routes: dict[str, R] = {}
        self._lock = threading.Lock()
        self._error = error
        self._suffix = suffix  # after /p/{deployment} in the base URL a runtime is given
        self._thread = ServerThread(self, name=name)
        self._thread.start()
        self.url = self._thread.url

    def mount(self, name: str, route: R) -> str:
        with self._lock:
            self._routes[name] = route
        return f"{self.url}/p/{name}{self._suffix}"

    def unmount(self, name: str) -> None:
        with self._lock:
            self._routes.pop(name, None)

    def route(self, name: str) -> R | None:
        with self._lock:
            return self._routes.get(name)

    def close(self) -> None:
        self._thread.stop()

    @abstractmethod
    def handle(self, request: Request) -> Answer: ...

    def refuse(self, status: int, message: str) -> Answer:
        return self._error(status, message)


class OnePathRoute(TrafficRoute, ABC):
    """A deployment's route that answers one path (:class:`OnePathProxy`)."""

    @abstractmethod
    def forward(self, request: Request) -> Answer: ...


OR = TypeVar("OR", bound=OnePathRoute)


class OnePathProxy(TrafficProxy[OR]):
    """A proxy with one route per deployment: ``POST /p/{deployment}{path}`` goes to the
    deployment's route (``forward``); anything else is a 404 in the runtime's error words."""

    def __init__(self, name: str, error: Callable[[int, str], Answer], path: str,
                 suffix: str = "/v1") -> None:
        self._path = path
        super().__init__(name, error, suffix)

    def handle(self, request: Request) -> Answer:
        parts = request.path.split("/", 3)  # "", "p", name, rest
        if (len(parts) < 4 or parts[1] != "p" or request.method != "POST"
                or "/" + parts[3] != self._path):
            return self.refuse(404, f"{request.method} {request.path} is not a route here: "
                               f"POST /p/{{deployment}}{self._path}")
        route = self.route(parts[2])
        if route is None:
            return self.refuse(404, f"no deployment {parts[2]!r} is open")
        return route.forward(request)


def edit_events(data: bytes, edit: Callable[[dict[str, Any]], None],
                separators: tuple[str, str] | None = None) -> bytes:
    """A server-sent event stream with the JSON of each ``data:`` line passed through ``edit``
    (which changes it in place) and written again (``separators`` as :func:`json.dumps` takes
    them); every other line, ``data: [DONE]`` included, as it was."""
    out = []
    for line in data.decode("utf-8").split("\n"):
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            event = json.loads(line[5:])
            edit(event)
            line = "data: " + json.dumps(event, separators=separators)
        out.append(line)
    return "\n".join(out).encode("utf-8")


class ProbeDeployment(Protocol):
    """A deployment made to probe its runtime: its route keeps, as ``probed``, what its root
    asked its model when put the probe's question (the adapter's ``proxy.PROBE``)."""

    @property
    def route(self) -> Any: ...

    def close(self) -> None: ...


def probed(deployment: ProbeDeployment, ask: Callable[[], Callable[[], str]], runtime: str,
           unknown: str) -> Any:
    """What the root of the probe ``deployment`` asked its model once ``ask`` put it the
    probe's question; the deployment is closed whatever happens. A root that never asked is
    PROTOCOL_ERROR: ``runtime``'s ``unknown`` (its own tools) are unknown, with what the
    runtime said (``ask`` gives how to read it, read once the deployment is closed)."""
    try:
        said = ask()
        seen = deployment.route.probed
    finally:
        deployment.close()
    if seen is None:
        raise TckError(ErrorCode.PROTOCOL_ERROR, f"{runtime}'s root never asked its model: its "
                       f"{unknown} are unknown ({said()})")
    return seen


P = TypeVar("P", bound=TrafficProxy[Any])


class TrafficTarget(Generic[P]):
    """The target: one model endpoint for all its deployments (made at the first deploy), the
    deployments named ``d1``, ``d2``, ..."""

    runtime: ClassVar[str]  # its name in messages: "Claude Code"
    folder: ClassVar[str]  # the adapter's folder below adapters/, also the target's name
    version: str  # the runtime's version (the pinned one, or the one the adapter was given)
    provider: ClassVar[str]  # the one provider's name
    depth_limit: bool = False  # whether the provider advertises depthLimit
    #: whether the provider advertises modelSelection (an agent definition's model)
    model_selection: ClassVar[bool] = False
    #: whether the provider advertises spawnPolicy (an agent definition's delegation rules)
    spawn_policy: ClassVar[bool] = False
    #: the runtime's own delegation tool, where SP-02 reads what it offers (None: not read)
    delegation_tool: str | None = None

    def __init__(self, proxy: Callable[[], P]) -> None:
        self._make_proxy = proxy
        self._proxy: P | None = None
        self._lock = threading.Lock()
        self._names = itertools.count(1)

    def info(self) -> TargetInfo:
        return TargetInfo(name=f"{self.folder} (via subagent-tck adapters/{self.folder})",
                          version=self.version, editions=[Edition.PRESET_COMPOSITION],
                          components=[], providers=[provider_info(
                              self.provider, self.depth_limit, self.model_selection,
                              self.spawn_policy, self.delegation_tool)])

    def _endpoint(self, gateway: Gateway) -> tuple[str, P, str]:
        """For a new deployment: the kit gateway's base URL, the model endpoint and the
        deployment's name. The runtime's requests reach the gateway over HTTP, so the adapter
        runs behind the driver API only (docs/driver-api.md#model-gateway)."""
        base = getattr(gateway, "base_url", None)
        if not isinstance(base, str):
            raise TckError(ErrorCode.INVALID_CONFIG, f"the {self.runtime} adapter runs behind "
                           "the driver API only: serve it with "
                           f"adapters/{self.folder}/server.py")
        with self._lock:
            if self._proxy is None:
                self._proxy = self._make_proxy()
            name = f"d{next(self._names)}"
        return base, self._proxy, name

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()

"""The workflow as a LangGraph state graph.

```
prepare -> model -> tools (one call per step, looping) -> model ...
                                 `-> (finish) gates -> green: approve? -> report -> END
                                                   `-> red: model (the findings in the next ask)
           model -> report when a budget runs out; model -> outage (paused) -> model
           approve -> rejected: model (the objection in the next ask)
```
"""

from __future__ import annotations

from functools import partial

from langgraph.graph import END, START, StateGraph

from agents.nodes import Nodes
from agents.report import report
from agents.runtime import Runtime
from agents.state import AgentState


def build_graph(rt: Runtime) -> StateGraph:
    nodes = Nodes(rt)
    graph = StateGraph(AgentState)
    graph.add_node("prepare", nodes.prepare)
    graph.add_node("model", nodes.model)
    graph.add_node("tools", nodes.tools)
    graph.add_node("gates", nodes.gates)
    graph.add_node("approve", nodes.approve)
    graph.add_node("outage", nodes.outage)
    graph.add_node("report", partial(report, rt))
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "model")
    graph.add_conditional_edges("model", nodes.after_model, ["report", "outage", "tools", "model"])
    graph.add_conditional_edges("tools", nodes.after_tools, ["tools", "gates", "model"])
    graph.add_conditional_edges("gates", nodes.after_gates, ["model", "approve", "report"])
    graph.add_conditional_edges("approve", nodes.after_approve, ["report", "model"])
    graph.add_edge("outage", "model")
    graph.add_edge("report", END)
    return graph

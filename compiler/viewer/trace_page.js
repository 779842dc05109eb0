/* ntc trace page: pick a kernel, a pass and a view (overview, diff, full IR, op counts, source).
   All text from the trace goes in through textContent; the page loads nothing. */
(function () {
  "use strict";

  var CONTEXT = 3; // unchanged lines kept around each change in the diff
  var data = JSON.parse(document.getElementById("ntc-trace-data").textContent);

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function formatSeconds(seconds) {
    return seconds.toFixed(4) + " s";
  }

  function line(kind, oldNo, newNo, sign, text) {
    var row = el("div", "line" + (kind ? " " + kind : ""));
    if (oldNo !== null) row.appendChild(el("span", "no", oldNo || ""));
    row.appendChild(el("span", "no", newNo || ""));
    if (sign !== null) row.appendChild(el("span", "sign", sign));
    row.appendChild(el("span", "text", text === "" ? " " : text));
    return row;
  }

  function codeBox() {
    var box = el("div", "code");
    var lines = el("div", "lines");
    box.appendChild(lines);
    return { box: box, lines: lines };
  }

  function diffRow(row) {
    var tag = row[0];
    var kind = tag === "+" ? "add" : tag === "-" ? "del" : "";
    return line(kind, row[1], row[2], tag === " " ? "" : tag, row[3]);
  }

  /* Rows of a diff, with long runs of unchanged lines folded behind a button. */
  function renderDiffRows(target, rows) {
    var i = 0;
    while (i < rows.length) {
      if (rows[i][0] !== " ") {
        target.appendChild(diffRow(rows[i]));
        i += 1;
        continue;
      }
      var start = i;
      while (i < rows.length && rows[i][0] === " ") i += 1;
      var end = i; // [start, end) unchanged
      var keepHead = start === 0 ? 0 : CONTEXT;
      var keepTail = end === rows.length ? 0 : CONTEXT;
      if (end - start <= keepHead + keepTail + 2) {
        for (var k = start; k < end; k += 1) target.appendChild(diffRow(rows[k]));
        continue;
      }
      for (var h = start; h < start + keepHead; h += 1) target.appendChild(diffRow(rows[h]));
      target.appendChild(foldButton(rows.slice(start + keepHead, end - keepTail)));
      for (var t = end - keepTail; t < end; t += 1) target.appendChild(diffRow(rows[t]));
    }
  }

  function foldButton(hidden) {
    var button = el("button", "fold", "\u22ef " + hidden.length + " unchanged lines (click to show)");
    button.type = "button";
    button.addEventListener("click", function () {
      var fragment = document.createDocumentFragment();
      hidden.forEach(function (row) { fragment.appendChild(diffRow(row)); });
      button.replaceWith(fragment);
    });
    return button;
  }

  function renderText(target, text, marked) {
    var box = codeBox();
    text.split("\n").forEach(function (content, index) {
      var isNew = marked && marked[index + 1];
      box.lines.appendChild(line(isNew ? "new" : "", null, index + 1, null, content));
    });
    target.appendChild(box.box);
  }

  function note(target, parts) {
    var p = el("p", "note");
    parts.forEach(function (part) {
      if (typeof part === "string") p.appendChild(document.createTextNode(part));
      else p.appendChild(el("strong", "", part.strong));
    });
    target.appendChild(p);
    return p;
  }

  function setupKernel(section, kernel) {
    var steps = section.querySelectorAll(".step");
    var tabs = section.querySelectorAll(".view-tab");
    var views = {};
    section.querySelectorAll(".view").forEach(function (view) {
      views[view.className.replace(/^view view-/, "").split(" ")[0]] = view;
    });
    var head = section.querySelector(".step-head");
    var detail = section.querySelector(".detail");
    var firstChanged = kernel.passes.filter(function (p) { return p.changed; })[0];
    var state = { step: firstChanged ? firstChanged.index : (kernel.passes.length ? 1 : 0),
                  view: "diff" };

    function passOf(step) { return step > 0 ? kernel.passes[step - 1] : null; }

    function renderHead() {
      head.textContent = "";
      if (state.view === "overview" || state.view === "source") return;
      var entry = passOf(state.step);
      var title = el("div", "step-title");
      if (!entry) {
        title.appendChild(el("span", "index", "#0"));
        title.appendChild(el("span", "name", "input IR"));
        title.appendChild(el("span", "muted", "the kernel as the frontend built it, before any pass"));
        head.appendChild(title);
        return;
      }
      title.appendChild(el("span", "index", "#" + entry.index));
      title.appendChild(el("span", "name", entry.pass));
      var badge = section.querySelector('.step[data-step="' + entry.index + '"] .badge');
      if (badge) title.appendChild(badge.cloneNode(true));
      title.appendChild(el("span", entry.changed ? "flag changed" : "flag same",
                           entry.changed ? "changed the IR" : "left the IR unchanged"));
      title.appendChild(el("span", entry.verified ? "flag ok" : "flag bad",
                           entry.verified ? "\u2713 verified" : "\u2717 not verified"));
      title.appendChild(el("span", "pill", formatSeconds(entry.seconds)));
      head.appendChild(title);
      var options = Object.keys(entry.options);
      var kv = el("div", "kv");
      kv.appendChild(el("span", "label", "options"));
      if (!options.length) kv.appendChild(el("span", "muted", "none"));
      options.forEach(function (key) {
        kv.appendChild(el("span", "chip", key + " = " + JSON.stringify(entry.options[key])));
      });
      head.appendChild(kv);
      var deltas = Object.keys(entry.op_count_delta).sort();
      var dv = el("div", "kv");
      dv.appendChild(el("span", "label", "op-count delta"));
      if (!deltas.length) dv.appendChild(el("span", "muted", "none"));
      deltas.forEach(function (op) {
        var value = entry.op_count_delta[op];
        dv.appendChild(el("span", "delta " + (value > 0 ? "up" : "down"),
                          (value > 0 ? "+" : "\u2212") + Math.abs(value) + " " + op));
      });
      head.appendChild(dv);
      entry.remarks.forEach(function (remark) {
        var rv = el("div", "kv");
        rv.appendChild(el("span", "label", "remark"));
        rv.appendChild(el("span", "remark", remark));
        head.appendChild(rv);
      });
    }

    function renderDiff(view) {
      var entry = passOf(state.step);
      if (!entry) {
        note(view, ["The pipeline's input: nothing to diff against. See ", { strong: "Full IR" }, "."]);
        if (kernel.input_ir) renderText(view, kernel.input_ir);
        return;
      }
      if (entry.diff === null) {
        note(view, ["No input IR was recorded, so the IR after ", { strong: entry.pass },
                    " is shown whole."]);
        renderText(view, entry.ir);
        return;
      }
      if (!entry.added && !entry.removed) {
        note(view, ["No line differs from ", { strong: entry.base }, ": ", { strong: entry.pass },
                    entry.changed ? " reported a change that the printed IR does not show."
                                  : " left the IR unchanged."]);
        return;
      }
      var summary = note(view, ["Against ", { strong: entry.base }, ": "]);
      summary.appendChild(el("span", "up", "+" + entry.added + " added"));
      summary.appendChild(document.createTextNode(", "));
      summary.appendChild(el("span", "down", "\u2212" + entry.removed + " removed"));
      summary.appendChild(document.createTextNode(" lines."));
      var box = codeBox();
      box.box.classList.add("diff");
      renderDiffRows(box.lines, entry.diff);
      view.appendChild(box.box);
    }

    function renderIr(view) {
      var entry = passOf(state.step);
      if (!entry) {
        if (kernel.input_ir) {
          note(view, ["Input IR (before the first pass)."]);
          renderText(view, kernel.input_ir);
        } else {
          note(view, ["The artifact recorded no input IR."]);
        }
        return;
      }
      var marked = {};
      (entry.diff || []).forEach(function (row) { if (row[0] === "+") marked[row[2]] = true; });
      note(view, ["IR after ", { strong: entry.pass },
                  entry.diff ? " (lines this pass added are marked at the left edge)." : "."]);
      renderText(view, entry.ir, marked);
    }

    function renderCounts(view) {
      var entry = passOf(state.step);
      var after = entry ? entry.op_counts : kernel.input_op_counts;
      var delta = entry ? entry.op_count_delta : {};
      var ops = {};
      Object.keys(after).forEach(function (op) { ops[op] = true; });
      Object.keys(delta).forEach(function (op) { ops[op] = true; });
      var names = Object.keys(ops).sort();
      note(view, entry ? ["Op counts before and after ", { strong: entry.pass }, "."]
                       : ["Op counts of the input IR."]);
      var table = el("table", "counts");
      var thead = el("thead");
      var hr = el("tr");
      ["op", "before", "after", "delta"].forEach(function (label) { hr.appendChild(el("th", "", label)); });
      thead.appendChild(hr);
      table.appendChild(thead);
      var body = el("tbody");
      var totals = [0, 0];
      names.forEach(function (op) {
        var now = after[op] || 0;
        var change = delta[op] || 0;
        var before = now - change;
        totals[0] += before;
        totals[1] += now;
        var tr = el("tr", change ? "" : "same");
        tr.appendChild(el("th", "", op));
        tr.appendChild(el("td", "num", before));
        tr.appendChild(el("td", "num", now));
        tr.appendChild(el("td", "num" + (change > 0 ? " up" : change < 0 ? " down" : ""),
                          change ? (change > 0 ? "+" : "\u2212") + Math.abs(change) : "\u00b7"));
        body.appendChild(tr);
      });
      var total = el("tr", "totals");
      total.appendChild(el("th", "", "all ops"));
      total.appendChild(el("td", "num", totals[0]));
      total.appendChild(el("td", "num", totals[1]));
      var net = totals[1] - totals[0];
      total.appendChild(el("td", "num", net ? (net > 0 ? "+" : "\u2212") + Math.abs(net) : "\u00b7"));
      body.appendChild(total);
      table.appendChild(body);
      view.appendChild(table);
    }

    var renderers = { diff: renderDiff, ir: renderIr, counts: renderCounts };

    function render() {
      steps.forEach(function (button) {
        var active = Number(button.dataset.step) === state.step;
        button.classList.toggle("active", active);
        button.setAttribute("aria-pressed", active ? "true" : "false");
      });
      tabs.forEach(function (tab) {
        var active = tab.dataset.view === state.view;
        tab.classList.toggle("active", active);
        tab.setAttribute("aria-selected", active ? "true" : "false");
      });
      Object.keys(views).forEach(function (name) {
        views[name].classList.toggle("active", name === state.view);
      });
      renderHead();
      var renderer = renderers[state.view];
      if (renderer) {
        var view = views[state.view];
        view.textContent = "";
        renderer(view);
      }
    }

    function selectStep(step) {
      state.step = Math.max(0, Math.min(kernel.passes.length, step));
      if (!renderers[state.view]) state.view = "diff";
      render();
    }

    steps.forEach(function (button) {
      button.addEventListener("click", function () { selectStep(Number(button.dataset.step)); });
    });
    section.querySelectorAll(".goto-step").forEach(function (button) {
      button.addEventListener("click", function () { selectStep(Number(button.dataset.step)); });
    });
    tabs.forEach(function (tab) {
      tab.addEventListener("click", function () { state.view = tab.dataset.view; render(); });
    });
    section.querySelector(".wrap-lines").addEventListener("change", function (event) {
      detail.classList.toggle("wrap", event.target.checked);
    });
    section.ntcMove = function (by) {
      if (renderers[state.view]) selectStep(state.step + by);
    };
    render();
  }

  var sections = document.querySelectorAll("section.kernel");
  sections.forEach(function (section) {
    setupKernel(section, data.kernels[Number(section.dataset.kernel)]);
  });

  var kernelTabs = document.querySelectorAll(".kernel-tab");
  function showKernel(index) {
    sections.forEach(function (section) {
      section.hidden = Number(section.dataset.kernel) !== index;
    });
    kernelTabs.forEach(function (tab) {
      tab.classList.toggle("active", Number(tab.dataset.kernel) === index);
    });
  }
  kernelTabs.forEach(function (tab) {
    tab.addEventListener("click", function () { showKernel(Number(tab.dataset.kernel)); });
  });
  if (sections.length) showKernel(0);

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    var onStep = target && target.classList && target.classList.contains("step");
    var by = event.key === "j" || (onStep && event.key === "ArrowDown") ? 1
           : event.key === "k" || (onStep && event.key === "ArrowUp") ? -1 : 0;
    if (!by) return;
    var visible = Array.prototype.filter.call(sections, function (s) { return !s.hidden; })[0];
    if (visible && visible.ntcMove) {
      event.preventDefault();
      visible.ntcMove(by);
      var active = visible.querySelector(".step.active");
      if (onStep && active) active.focus();
    }
  });

  // The system's preference picks the first theme; the toggle switches it.
  var root = document.documentElement;
  var prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.theme = prefersDark ? "dark" : "light";
  var toggle = document.querySelector(".theme-toggle");
  if (toggle) {
    toggle.addEventListener("click", function () {
      root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
    });
  }
})();

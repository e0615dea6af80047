/* pbem replay page: steps through every file of a game. Text from the record is only ever
 * set with textContent; the map layers are SVG built (and escaped) by pbem. */
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var view = data.views[0].id, step = 0;

  function frames() { return data.frames[view]; }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function only(vis) { return vis === "all" ? null : el("span", " [" + vis + " only]", "only"); }

  function turns() {
    var out = [], seen = {};
    frames().forEach(function (f, i) { if (!(f.turn in seen)) { seen[f.turn] = i; out.push([f.turn, i]); } });
    return out;
  }
  function fillTurns() {
    var sel = $("rp-turn");
    clear(sel);
    turns().forEach(function (t) {
      var o = el("option", "Turn " + t[0]);
      o.value = String(t[1]);
      sel.appendChild(o);
    });
  }

  function show(i) {
    var fs = frames();
    step = Math.max(0, Math.min(fs.length - 1, i));
    var f = fs[step];
    function pieces(ks) { return ks.map(function (k) { return data.layers[k]; }).join(""); }
    $("rp-units").innerHTML = '<g class="units">' + pieces(f.layer[0]) + "</g>";
    $("rp-top").innerHTML = '<g class="markers">' + pieces(f.layer[1]) + "</g>" + data.layers[f.layer[2]] +
      pieces(f.layer[3]) + "</g>";
    $("rp-range").max = String(fs.length - 1);
    $("rp-range").value = String(step);
    $("rp-counter").textContent = "Step " + (step + 1) + " of " + fs.length;
    $("rp-first").disabled = $("rp-prev").disabled = step === 0;
    $("rp-next").disabled = $("rp-last").disabled = step === fs.length - 1;
    $("rp-title").textContent = f.title;
    $("rp-position").textContent = (step ? "Position after it: " : "Position: ") + f.label + ", " + f.phase;
    $("rp-file").textContent = f.file + "  sha256 " + f.hash;
    var notes = $("rp-notes");
    clear(notes);
    f.notes.forEach(function (n) { notes.appendChild(el("li", n)); });
    // orders
    var ol = $("rp-orders");
    clear(ol);
    if (f.orders === null) {
      $("rp-orders-note").textContent = f.count + " order(s), hidden from this view.";
    } else {
      f.orders.forEach(function (o, k) { ol.appendChild(el("li", o, f.skipped.indexOf(k) >= 0 ? "skipped" : "")); });
      $("rp-orders-note").textContent = f.orders.length ? (f.skipped.length ? "Struck out: skipped (illegal after earlier dice)." : "") : "No orders in this file.";
    }
    $("rp-message").textContent = f.message ? "Message: " + f.message : "";
    // events
    var ev = $("rp-events");
    clear(ev);
    f.events.forEach(function (e) {
      var li = el("li", e[0], "ev-" + String(e[1]).toLowerCase().replace(/[^a-z0-9_-]+/g, "-"));
      if (e[2].length) li.appendChild(el("span", " (" + e[2].join(", ") + ")", "hexes"));
      var o = only(e[3]); if (o) li.appendChild(o);
      ev.appendChild(li);
    });
    $("rp-no-events").hidden = f.events.length > 0;
    // dice
    var tb = $("rp-dice");
    clear(tb);
    f.rolls.forEach(function (r) {
      var tr = el("tr");
      var td = el("td", r[5]); var o = only(r[6]); if (o) td.appendChild(o);
      tr.appendChild(td);
      tr.appendChild(el("td", "d" + r[3], "num"));
      tr.appendChild(el("td", String(r[4]), "num"));
      tr.appendChild(el("td", r[0] + "." + r[1] + "." + r[2], "num mono"));
      tb.appendChild(tr);
    });
    $("rp-no-dice").hidden = f.rolls.length > 0;
    // decisions and outcome
    var pd = $("rp-pending");
    clear(pd);
    f.pending.forEach(function (d) {
      var div = el("div", null, "decision");
      div.appendChild(el("span", d[0] + ": ", "who"));
      div.appendChild(document.createTextNode(d[1]));
      pd.appendChild(div);
    });
    if (!f.pending.length) pd.appendChild(el("p", "Nothing.", "muted"));
    $("rp-outcome").hidden = !f.outcome;
    $("rp-outcome-text").textContent = f.outcome ? (f.outcome[0] ? f.outcome[0] + " wins" : "A draw") + ": " + f.outcome[1] : "";
    // panels
    var pn = $("rp-panels");
    clear(pn);
    var last = null;
    f.panels.map(function (k) { return data.panels[k]; }).forEach(function (p) {
      if (p[0] !== last && view === "full") { pn.appendChild(el("div", p[0], "panelside")); last = p[0]; }
      pn.appendChild(el("b", p[1]));
      var ul = el("ul", null, "plain");
      p[2].forEach(function (line) { ul.appendChild(el("li", line)); });
      pn.appendChild(ul);
    });
    // the turn selector follows the step
    var ts = turns(), cur = ts[0][1];
    ts.forEach(function (t) { if (t[1] <= step) cur = t[1]; });
    $("rp-turn").value = String(cur);
    document.body.setAttribute("data-step", String(step));
    document.body.setAttribute("data-seq", String(f.seq));
    if (history.replaceState) history.replaceState(null, "", "#view=" + encodeURIComponent(view) + "&step=" + step);
  }

  function nextTurn(dir) {
    var ts = turns(), cur = frames()[step].turn, target = step;
    for (var k = 0; k < ts.length; k++) {
      if (ts[k][0] === cur) {
        if (dir > 0 && k + 1 < ts.length) target = ts[k + 1][1];
        if (dir < 0) target = (ts[k][1] < step) ? ts[k][1] : (k > 0 ? ts[k - 1][1] : 0);
      }
    }
    show(target);
  }
  function setView(v) {
    var f = frames()[step];
    view = v;
    $("rp-view").value = v;
    document.querySelectorAll(".rp-stats").forEach(function (s) { s.hidden = s.getAttribute("data-view") !== v; });
    fillTurns();
    var k = frames().findIndex(function (g) { return g.seq === f.seq; });
    show(k < 0 ? 0 : k);
  }

  $("rp-first").addEventListener("click", function () { show(0); });
  $("rp-prev").addEventListener("click", function () { show(step - 1); });
  $("rp-next").addEventListener("click", function () { show(step + 1); });
  $("rp-last").addEventListener("click", function () { show(frames().length - 1); });
  $("rp-range").addEventListener("input", function () { show(Number($("rp-range").value)); });
  $("rp-turn").addEventListener("change", function () { show(Number($("rp-turn").value)); });
  $("rp-view").addEventListener("change", function () { setView($("rp-view").value); });
  document.addEventListener("keydown", function (e) {
    var t = e.target && e.target.tagName;
    if (t === "SELECT" || t === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
    var keys = { ArrowRight: function () { show(step + 1); }, ArrowLeft: function () { show(step - 1); },
                 Home: function () { show(0); }, End: function () { show(frames().length - 1); },
                 PageDown: function () { nextTurn(1); }, PageUp: function () { nextTurn(-1); } };
    if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
  });

  var m = /view=([^&]*)&step=(\d+)/.exec(location.hash || "");
  var start = m && data.frames[decodeURIComponent(m[1])] ? decodeURIComponent(m[1]) : view;
  view = start;
  setView(start);
  if (m) show(Number(m[2]));
  window.pbemReplay = { show: show, step: function () { return step; }, view: function () { return view; },
                        count: function () { return frames().length; }, setView: setView };

  // the browser's own verification of the record this page holds
  var status = $("verify-status"), detail = $("verify-detail");
  function done(cls, text, more) {
    status.className = "vstatus " + cls;
    status.textContent = text;
    if (more) detail.textContent = more;
    document.body.setAttribute("data-verified", cls);
  }
  window.pbemVerification = (async function () {
    try {
      var bad = await PbemVerifier.selfTest();
      if (bad.length) { done("error", "Browser verifier failed its self-test", "Self-test failed: " + bad.join(", ")); return { ok: false }; }
      var text = JSON.parse(document.getElementById("record-data").textContent);
      if (text === null) {
        done("none", "Not verified in this browser", "This page holds no record to verify: it was made " +
             "from a referee's archive of a game in progress, whose signed files carry both sides' hidden " +
             "units. pbem verify audits the archive itself.");
        return { ok: false, withheld: true };
      }
      var r = await PbemVerifier.verify(text);
      if (r.ok) {
        var c = r.counts;
        done("ok", "Verified in this browser", "The record verifies in this browser: " + c.files + " signed files, " +
             c.signatures + " Ed25519 signatures, a chain of " + c.chain + " files, " + c.reveals +
             " dice reveals and " + c.dice + " dice recomputed from the commitments" +
             (c.views ? ", " + c.views + " referee views" : "") + ". The rules are replayed by pbem verify, not here.");
      } else {
        done("failed", "Does not verify: " + r.file, "The record does not verify: " + r.file + ": " + r.problem);
      }
      return r;
    } catch (e) {
      done("error", "Could not verify in this browser", String(e && e.message || e));
      return { ok: false, problem: String(e) };
    }
  })();
})();

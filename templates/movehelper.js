/* pbem report helper: outlines the hexes where units may be placed, and the move helper.
   Every hex, cost and order template comes from the data the rules engine wrote into the
   page (#pbem-helper); this script only draws it and assembles order lines from it. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var dataEl = document.getElementById("pbem-helper");
  var svg = document.querySelector("svg.hexmap");
  if (!dataEl || !svg) { return; }
  var data = JSON.parse(dataEl.textContent);
  var status = document.getElementById("mh-status");
  function say(text) { if (status) { status.textContent = text; } }

  var shapes = {};         /* hex id -> the element that draws the hex */
  var hexes = [];          /* the hex order of the data: the map's hex ids sorted, then extra */
  var all = svg.querySelectorAll(".hex[data-hex]");
  for (var i = 0; i < all.length; i++) {
    var id = all[i].getAttribute("data-hex");
    if (!Object.prototype.hasOwnProperty.call(shapes, id)) { shapes[id] = all[i]; hexes.push(id); }
  }
  hexes.sort();
  hexes = hexes.concat(data.extra);
  if (hexes.length !== data.n) { say("The move helper's data does not fit this map."); return; }

  var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  function varints(text) {   /* base-64 digits of 5 bits, least significant first; >= 32: more */
    var out = [];
    var v = 0;
    var shift = 0;
    for (var k = 0; k < text.length; k++) {
      var d = B64.indexOf(text.charAt(k));
      v += (d & 31) * Math.pow(2, shift);
      if (d >= 32) { shift += 5; } else { out.push(v); v = 0; shift = 0; }
    }
    return out;
  }
  function runs(text) {      /* hex numbers from (gap, length) pairs */
    var nums = varints(text);
    var out = [];
    var pos = 0;
    for (var k = 0; k + 1 < nums.length; k += 2) {
      pos += nums[k];
      for (var e = pos + nums[k + 1]; pos < e; pos++) { out.push(pos); }
    }
    return out;
  }

  var layer = document.createElementNS(NS, "g");
  layer.setAttribute("class", "hl-layer");
  layer.setAttribute("pointer-events", "none");
  svg.appendChild(layer);

  function hexShape(h) {
    return Object.prototype.hasOwnProperty.call(shapes, h) ? shapes[h] : null;
  }

  function clearLayer(kind) {
    var old = layer.querySelectorAll("." + kind);
    for (var i = 0; i < old.length; i++) { layer.removeChild(old[i]); }
  }

  function hexBox(shape) {
    /* the hex's box in map coordinates, whatever draws it (a polygon, a <use> of a symbol) */
    var r = shape.getBoundingClientRect();
    var m = svg.getScreenCTM().inverse();
    var p = svg.createSVGPoint();
    p.x = r.left; p.y = r.top;
    var a = p.matrixTransform(m);
    p.x = r.right; p.y = r.bottom;
    var b = p.matrixTransform(m);
    return {x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y};
  }

  function hexagon(b) {
    var pts = b.w >= b.h            /* flat-topped columns; else pointy-topped rows */
      ? [[0.25, 0], [0.75, 0], [1, 0.5], [0.75, 1], [0.25, 1], [0, 0.5]]
      : [[0.5, 0], [1, 0.25], [1, 0.75], [0.5, 1], [0, 0.75], [0, 0.25]];
    return pts.map(function (q) {
      return (b.x + q[0] * b.w).toFixed(1) + "," + (b.y + q[1] * b.h).toFixed(1);
    }).join(" ");
  }

  function outline(h, kind, text) {
    var shape = hexShape(h);
    if (!shape) { return; }
    var b = hexBox(shape);
    var g = document.createElementNS(NS, "g");
    g.setAttribute("class", "hl " + kind);
    g.setAttribute("data-hl", h);
    var c = document.createElementNS(NS, "polygon");
    c.setAttribute("class", "hl-shape");
    c.setAttribute("points", hexagon(b));
    g.appendChild(c);
    if (text) {
      var t = document.createElementNS(NS, "text");
      t.setAttribute("x", String(b.x + b.w / 2));
      t.setAttribute("y", String(b.y + b.h * 0.86));
      t.setAttribute("text-anchor", "middle");
      t.setAttribute("class", "hl-cost");
      t.setAttribute("font-size", String(Math.max(8, b.h * 0.24)));
      t.textContent = text;
      g.appendChild(t);
    }
    layer.appendChild(g);
  }

  /* -- units to place ------------------------------------------------------------------ */
  var placeRows = document.querySelectorAll("tr.place-row");
  var placeShown = "";
  function showPlaces(unit) {
    clearLayer("hl-place");
    var seen = {};
    data.place.forEach(function (p) {
      if (unit && p.unit !== unit) { return; }
      p.hexes.forEach(function (h) {
        if (!seen[h]) { seen[h] = 1; outline(h, "hl-place", ""); }
      });
    });
    placeShown = unit;
    for (var i = 0; i < placeRows.length; i++) {
      placeRows[i].classList.toggle("selected", placeRows[i].getAttribute("data-unit") === unit);
    }
  }
  for (var i = 0; i < placeRows.length; i++) {
    placeRows[i].addEventListener("click", function (ev) {
      var u = ev.currentTarget.getAttribute("data-unit");
      showPlaces(placeShown === u ? "" : u);
    });
  }
  if (data.place.length) { showPlaces(""); }

  /* -- where the map opens: on what the player acts on -------------------------------- */
  function decisionHexes() {   /* the map's hexes named by the player's own decisions */
    var out = [];
    var mine = document.querySelectorAll("#pending .decision.mine");
    for (var k = 0; k < mine.length; k++) {
      (mine[k].textContent.match(/[^\s,;:|()\[\]]+/g) || []).forEach(function (w) {
        var el = hexShape(w.replace(/[.]+$/, ""));
        if (el) { out.push(el); }
      });
    }
    return out;
  }

  /* the hexes he may place units in, else the units the move helper offers, else the hexes
     his decision names, else his own units on the map; when they do not all fit in the map's
     window, the window centred on the one with the most of them around it */
  function focusMap() {
    var wrap = svg.parentNode;
    if (!wrap || !wrap.classList || !wrap.classList.contains("mapwrap")) { return; }
    if (wrap.scrollWidth <= wrap.clientWidth && wrap.scrollHeight <= wrap.clientHeight) { return; }
    var els = [];
    data.place.forEach(function (p) { p.hexes.forEach(function (h) { els.push(hexShape(h)); }); });
    if (!els.length) { data.reach.forEach(function (e) { els.push(hexShape(e[1])); }); }
    els = els.filter(function (el) { return el; });
    if (!els.length) { els = decisionHexes(); }
    if (!els.length) { els = Array.prototype.slice.call(svg.querySelectorAll(".unit.own")); }
    if (!els.length) { return; }
    var w = wrap.getBoundingClientRect();
    var W = wrap.clientWidth - 80, H = wrap.clientHeight - 80;   /* a margin of 40 around */
    var pts = els.map(function (el) {
      var r = el.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    });
    function near(c) {                  /* the points in a window centred on c */
      return pts.filter(function (q) {
        return Math.abs(q[0] - c[0]) <= W / 2 && Math.abs(q[1] - c[1]) <= H / 2;
      });
    }
    var best = near(pts[0]);
    pts.forEach(function (c) { var n = near(c); if (n.length > best.length) { best = n; } });
    var lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
    best.forEach(function (q) {
      lo = [Math.min(lo[0], q[0]), Math.min(lo[1], q[1])];
      hi = [Math.max(hi[0], q[0]), Math.max(hi[1], q[1])];
    });
    wrap.scrollLeft += (lo[0] + hi[0]) / 2 - (w.left + wrap.clientWidth / 2);
    wrap.scrollTop += (lo[1] + hi[1]) / 2 - (w.top + wrap.clientHeight / 2);
  }
  focusMap();

  /* -- move helper --------------------------------------------------------------------- */
  if (!data.reach.length) { return; }
  data.reach = data.reach.map(function (e) {   /* packed entries -> {hex: [cost, prev, end]} */
    var o = data.orders[e[4]];
    var r = {unit: e[0], hex: e[1], label: e[2], allowance: e[3], sep: o[1], to: {},
             order: o[2] ? o[0].split("{u}").join(e[0]).split("{h}").join(e[1]) : o[0]};
    var nums = runs(e[5]);
    var steps = varints(e[6]);
    var at = {};           /* hex number -> its step */
    nums.forEach(function (k, j) { at[k] = data.steps[steps[j]]; });
    var cost = {};         /* hex number -> index of its cost */
    function costOf(k, depth) {
      if (!(k in cost)) {
        var s = at[k];
        cost[k] = s[0] === null || depth > nums.length ? s[1] : costOf(k + s[0], depth + 1) + s[1];
      }
      return cost[k];
    }
    nums.forEach(function (k) {
      var s = at[k];
      r.to[hexes[k]] = [data.costs[costOf(k, 0)], s[0] === null ? "" : hexes[k + s[0]], s[2]];
    });
    return r;
  });
  var box = document.getElementById("mh-orders");
  var selected = null;
  var lines = {};          /* unit id -> order line */
  var order = [];          /* unit ids in the order their lines were written */
  var cycle = {};          /* hex -> index of the unit last selected there */

  function select(r) {
    selected = r;
    clearLayer("hl-reach");
    if (!r) { say("No unit selected."); return; }
    var n = 0;
    Object.keys(r.to).forEach(function (h) {
      var x = r.to[h];
      outline(h, x[2] ? "hl-reach" : "hl-reach hl-through", x[0]);
      if (x[2]) { n += 1; }
    });
    say("Selected " + r.label + (r.hex ? " in " + r.hex : " (entering)") + ", " +
        r.allowance + ": " + n + " hexes it can end in. Click one to write the order.");
  }

  function path(r, h) {
    var out = [];
    var guard = 0;
    while (h && guard < 1000) { out.unshift(h); h = r.to[h][1]; guard += 1; }
    return out;
  }

  function write(r, h) {
    var line = r.order.replace("{path}", path(r, h).join(r.sep));
    if (!(r.unit in lines)) { order.push(r.unit); }
    lines[r.unit] = line;
    box.value = order.map(function (u) { return lines[u]; }).join("\n") + "\n";
    say("Wrote: " + line + " (cost " + r.to[h][0] + ").");
    selected = null;
    clearLayer("hl-reach");
  }

  function hexAt(ev) {
    /* the hex under the pointer, even below roads, rivers and labels drawn over it */
    var el = ev.target.closest ? ev.target.closest("[data-hex]") : null;
    if (el) { return el.getAttribute("data-hex"); }
    var stack = document.elementsFromPoint(ev.clientX, ev.clientY);
    for (var i = 0; i < stack.length; i++) {
      if (stack[i].getAttribute && stack[i].getAttribute("data-hex")) {
        return stack[i].getAttribute("data-hex");
      }
    }
    return "";
  }

  svg.addEventListener("click", function (ev) {
    var h = hexAt(ev);
    if (!h) { return; }
    if (selected && selected.to[h] && selected.to[h][2]) { write(selected, h); return; }
    var here = data.reach.filter(function (r) { return r.hex === h; });
    if (!here.length) { select(null); return; }
    var k = h in cycle ? (cycle[h] + 1) % here.length : 0;
    cycle[h] = k;
    select(here[k]);
  });

  var card = document.getElementById("movehelper");
  var entering = data.reach.filter(function (r) { return !r.hex; });
  if (card && entering.length) {
    var p = document.createElement("p");
    p.textContent = "Entering the map: ";
    entering.forEach(function (r) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "mh-enter";
      b.setAttribute("data-unit", r.unit);
      b.textContent = r.label;
      b.addEventListener("click", function () { select(r); });
      p.appendChild(b);
      p.appendChild(document.createTextNode(" "));
    });
    card.insertBefore(p, box);
  }

  document.getElementById("mh-clear").addEventListener("click", function () {
    lines = {}; order = []; box.value = ""; select(null);
  });
  document.getElementById("mh-copy").addEventListener("click", function () {
    box.select();
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(box.value).then(function () { say("Copied."); },
        function () {
          say(document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
        });
    } else {
      say(document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
    }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { select(null); }
  });
}());

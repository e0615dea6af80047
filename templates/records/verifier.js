/* pbem record verifier for the browser: a second, independent implementation of
 * docs/protocol.md (sections 1 to 6 and 8) with the browser's own cryptography (WebCrypto:
 * Ed25519, SHA-256, HMAC-SHA256). It checks every signed file of a record: canonical JSON,
 * the envelope, the signature under the pinned key, the genesis and the game id, the hash
 * chain, every onion reveal, and every die the record states (recomputed from the dice
 * commitments). It does not replay the rules (the state hashes): `pbem verify` does.
 *
 * PbemVerifier.verify(recordText, onProgress) resolves to
 *   {ok: true, counts} or {ok: false, file: "files/0012-axis.pbem", problem: "..."}.
 * No network, no dependencies. */
"use strict";
var PbemVerifier = (function () {
  var ENC = new TextEncoder();
  var MAX_DEPTH = 64;

  function Fail(file, problem) { this.file = file; this.problem = problem; }

  /* -- bytes -------------------------------------------------------------------------- */
  function concat(parts) {
    var n = 0, i, off = 0;
    for (i = 0; i < parts.length; i++) n += parts[i].length;
    var out = new Uint8Array(n);
    for (i = 0; i < parts.length; i++) { out.set(parts[i], off); off += parts[i].length; }
    return out;
  }
  function ascii(s) { return ENC.encode(s); }
  function u32(n) { var b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n >>> 0); return b; }
  function u64(n) { var b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(n)); return b; }
  function lp(bytes) { return concat([u32(bytes.length), bytes]); }
  function hex(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    return s;
  }
  function unhex(s, n, what) {
    if (typeof s !== "string" || !/^([0-9a-f]{2})*$/.test(s) || (n && s.length !== 2 * n))
      throw new Error("malformed " + what + " (not " + (n || "") + " bytes of lower-case hex)");
    var b = new Uint8Array(s.length / 2);
    for (var i = 0; i < b.length; i++) b[i] = parseInt(s.substr(2 * i, 2), 16);
    return b;
  }
  function equal(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  function b64decode(s, what) {
    if (typeof s !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4)
      throw new Error(what + " is not valid base64");
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    var again = "";
    for (var j = 0; j < out.length; j += 0x8000)
      again += String.fromCharCode.apply(null, out.subarray(j, j + 0x8000));
    if (btoa(again) !== s) throw new Error(what + " is not canonical base64");
    return out;
  }

  /* -- primitives --------------------------------------------------------------------- */
  var subtle = (typeof crypto !== "undefined" && crypto.subtle) ? crypto.subtle : null;
  async function H(bytes) { return new Uint8Array(await subtle.digest("SHA-256", bytes)); }
  var hmacKeys = new Map();
  async function hmac(key, msg) {
    var id = hex(key), k = hmacKeys.get(id);
    if (!k) {
      k = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      if (hmacKeys.size > 4096) hmacKeys.clear();
      hmacKeys.set(id, k);
    }
    return new Uint8Array(await subtle.sign("HMAC", k, msg));
  }
  /* A key anyone can sign for (docs/protocol.md, "Keys"): one of the eight small-order points of
     Edwards25519 in any encoding (y with the sign bit cleared is 0, 1, p - 1 or one of the two
     of order 8), or a y not reduced mod p. */
  var SMALL_ORDER_Y = ["00".repeat(32), "01" + "00".repeat(31),
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", "ec" + "ff".repeat(30) + "7f"];
  function weakKey(pub) {
    var y = Uint8Array.from(pub);
    y[31] &= 0x7f;
    var middle = true;
    for (var i = 1; i < 31; i++) if (y[i] !== 0xff) middle = false;
    return (y[31] === 0x7f && y[0] >= 0xed && middle) || SMALL_ORDER_Y.indexOf(hex(y)) >= 0;
  }
  var edKeys = new Map();
  async function ed25519Verify(pub, sig, msg) {
    var id = hex(pub), k = edKeys.get(id);
    if (!k) {
      k = await subtle.importKey("raw", pub, { name: "Ed25519" }, false, ["verify"]);
      edKeys.set(id, k);
    }
    return await subtle.verify({ name: "Ed25519" }, k, sig, msg);
  }

  /* -- section 1: canonical JSON ------------------------------------------------------ */
  function depthOk(text) {
    var depth = 0, inStr = false;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (inStr) {
        if (c === "\\") i++;
        else if (c === '"') inStr = false;
      } else if (c === '"') inStr = true;
      else if (c === "[" || c === "{") { if (++depth > MAX_DEPTH) return false; }
      else if (c === "]" || c === "}") depth--;
    }
    return true;
  }
  var LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/;
  function canon(v) {
    if (v === null) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) throw new Error("a number that is not an integer within +/-(2^53-1)");
      return String(v);
    }
    if (typeof v === "string") {
      /* a lone surrogate (an escape such as \ud800) is no Unicode text: UTF-8 cannot carry it
         and pbem's decoder refuses it, while JSON.stringify would give the escape back */
      if (LONE_SURROGATE.test(v)) throw new Error("a string that is not Unicode text (a lone surrogate)");
      return JSON.stringify(v);
    }
    if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
    var keys = Object.keys(v).sort();
    return "{" + keys.map(function (k) {
      if (!/^[\x00-\x7f]*$/.test(k)) throw new Error("a non-ASCII key");
      return JSON.stringify(k) + ":" + canon(v[k]);
    }).join(",") + "}";
  }
  function decodeCanonical(bytes, what) {
    var text;
    try { text = new TextDecoder("utf-8", { fatal: true }).decode(bytes); }
    catch (e) { throw new Error(what + " is not UTF-8"); }
    if (!depthOk(text)) throw new Error(what + " is nested deeper than " + MAX_DEPTH + " levels");
    var obj;
    try { obj = JSON.parse(text); } catch (e) { throw new Error(what + " is not JSON"); }
    var again;
    try { again = canon(obj); } catch (e) { throw new Error(what + " leaves the profile (" + e.message + ")"); }
    if (!equal(ascii(again), bytes)) throw new Error(what + " is not in canonical form");
    return obj;
  }

  /* -- section 2: record types (exact fields, each of its type) ------------------------ */
  /* A shape is "str", "int", "any" (any JSON value), "obj" (an object of any values),
     {list: shape}, {map: shape} (an object of such values), {orNull: shape} or an object
     {fields: {name: shape}, what: "a roll"}: exactly these fields (a field whose name ends
     with "?" may be left out), each of its shape. pbem decodes every payload strictly into
     its record type (docs/protocol.md section 1, step 3), so a field of another type (a
     message that is a number, class reveals that are a list) is refused there and here. */
  function rec(what, f) { return { fields: f, what: what }; }
  var ONION = rec("the dice commitment", { tip: "str", length: "int" });
  var ROLL = { action: "int", index: "int", purpose: "str", sides: "int", value: "int", visible_to: "str" };
  var RENEWAL = rec("a renewal", { renewal: rec("a renewal", { base: "int", game_id: "str", generation: "int",
    label: "str", length: "int", party: "str", tip: "str", type: "str" }), sig: "str" });
  var SHAPES = {
    "pbem/proposal/v1": rec("the payload", { class_onions: { map: ONION }, created: "str", data_hash: "str",
      game: "str", mode: "str", nonce: "str", onion: ONION, options: "obj",
      parties: { list: rec("a party", { name: "str", party: "str", pub: "str" }) },
      policy: rec("the policy", { forfeit: "str", reply_days: "int" }), proposer: "str",
      rules_version: "str", scenario: "str", type: "str", "fact_commit?": "str" }),
    "pbem/accept/v1": rec("the payload", { class_onions: { map: ONION }, nonce: "str", onion: ONION,
      party: "str", proposal: "str", type: "str", "fact_commit?": "str" }),
    "pbem/turn/v1": rec("the payload", { class_reveals: { map: "str" }, game_id: "str", message: "str",
      orders: { list: "str" }, prev: "str", reveal: "str", sender: "str", seq: "int", type: "str",
      results: { orNull: rec("the results", { rolls: { list: rec("a roll", ROLL) }, seq: "int",
        skipped: { list: "int" }, state_hash: "str" }) },
      "renewals?": { list: RENEWAL },
      "commits?": { list: rec("a fact commitment", { fact: "str", hash: "str", version: "int" }) },
      "openings?": { list: rec("an opening", { fact: "str", salt: "str", value: "any", version: "int" }) },
      "final?": rec("the final reveal", { fact_key: "str", orders: { map: { list: "str" } } }) }),
    "pbem/view/v1": rec("the payload", { events: { list: "any" }, game_id: "str", genesis: { list: "str" },
      outcome: "any", pending: { list: "any" }, report: "any", seq: "int", side: "str", state: "any",
      tip: "str", type: "str", view_seq: "int",
      proofs: { list: rec("a dice proof", { file_hash: "str", sender: "str", seq: "int", shares: { map: "str" } }) },
      rolls: { list: rec("a roll", Object.assign({ seq: "int" }, ROLL)) },
      "renewals?": { list: RENEWAL } }),
    "pbem/reject/v1": rec("the payload", { file: "str", game_id: "str", order: "int", reason: "str",
      rule: "str", sender: "str", seq: "int", type: "str" })
  };
  function isObj(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }
  function shape(v, sh, what) {
    if (sh === "any") return;
    if (sh === "str") { if (!isStr(v)) throw new Error(what + " is not a string"); return; }
    if (sh === "int") { if (!isInt(v)) throw new Error(what + " is not an integer"); return; }
    if (sh === "obj") { if (!isObj(v)) throw new Error(what + " is not an object"); return; }
    if (sh.orNull) { if (v !== null) shape(v, sh.orNull, what); return; }
    if (sh.list) {
      if (!Array.isArray(v)) throw new Error(what + " is not a list");
      v.forEach(function (x) { shape(x, sh.list, sh.list.what || "an item of " + what); });
      return;
    }
    if (sh.map) {
      if (!isObj(v)) throw new Error(what + " is not an object");
      Object.keys(v).forEach(function (k) { shape(v[k], sh.map, sh.map.what || "a value of " + what); });
      return;
    }
    what = sh.what;
    if (!isObj(v)) throw new Error(what + " is not an object");
    var want = [];
    Object.keys(sh.fields).forEach(function (k) {
      var opt = k.slice(-1) === "?", name = opt ? k.slice(0, -1) : k;
      if (!opt || Object.prototype.hasOwnProperty.call(v, name)) want.push(name);
    });
    fields(v, want.join(" "), what);
    Object.keys(sh.fields).forEach(function (k) {
      var name = k.slice(-1) === "?" ? k.slice(0, -1) : k;
      if (Object.prototype.hasOwnProperty.call(v, name)) shape(v[name], sh.fields[k], what + ": " + name);
    });
  }
  var NAMESPACE = {
    "pbem/proposal/v1": "pbem-genesis-v1", "pbem/accept/v1": "pbem-genesis-v1",
    "pbem/turn/v1": "pbem-turn-v1", "pbem/view/v1": "pbem-view-v1", "pbem/reject/v1": "pbem-reject-v1"
  };
  function fields(obj, list, what) {
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new Error(what + " is not an object");
    var got = Object.keys(obj).sort().join(" ");
    var want = list.split(" ").sort().join(" ");
    if (got !== want) throw new Error(what + " has fields [" + got + "], expected [" + want + "]");
  }
  function isInt(x) { return Number.isSafeInteger(x); }
  function isStr(x) { return typeof x === "string"; }
  function checkOnion(c, what) {
    fields(c, "length tip", what);
    unhex(c.tip, 32, what + " tip");
    /* docs/protocol.md section 6: every onion's length is between 16 and 2^20 */
    if (!isInt(c.length) || c.length < 16 || c.length > 1048576) throw new Error(what + " has a bad length");
  }
  function checkPayload(p) {
    var t = isObj(p) ? p.type : undefined, sh = SHAPES[t];
    if (!sh) throw new Error("unknown record type " + JSON.stringify(t));
    ["renewals", "commits", "openings"].forEach(function (k) {
      /* present only when not empty: an empty list is not canonical */
      if (k in p && Array.isArray(p[k]) && !p[k].length) throw new Error("an empty list of " + k + " must be left out");
    });
    if ("fact_commit" in p && t === "pbem/proposal/v1" && p.mode !== "sealed")
      /* sealed mode only (docs/protocol.md section 2): the party's fact-key commitment */
      throw new Error("a fact-key commitment outside a sealed game");
    /* sealed mode only (docs/sealed.md): commitments, openings and the final reveal; the
       full-information replay they allow needs the rules, which `pbem verify` runs */
    shape(p, sh, "the payload");
    if ("fact_commit" in p) unhex(p.fact_commit, 32, "fact-key commitment");
    if (t === "pbem/proposal/v1") {
      unhex(p.nonce, 16, "proposal nonce");
      p.parties.forEach(function (k) { unhex(k.pub, 32, "public key"); });
      checkOnion(p.onion, "the dice commitment");
      Object.keys(p.class_onions).forEach(function (c) { checkOnion(p.class_onions[c], "a class commitment"); });
      if (p.mode !== "peer" && p.mode !== "hosted" && p.mode !== "sealed") throw new Error("unknown mode");
    } else if (t === "pbem/accept/v1") {
      unhex(p.nonce, 16, "acceptance nonce");
      unhex(p.proposal, 32, "proposal hash");
      checkOnion(p.onion, "the dice commitment");
      Object.keys(p.class_onions).forEach(function (c) { checkOnion(p.class_onions[c], "a class commitment"); });
    } else if (t === "pbem/turn/v1") {
      if (p.seq < 1) throw new Error("bad sequence number");
      unhex(p.prev, 32, "previous-file hash");
      unhex(p.reveal, 32, "dice reveal");
    }
    return t;
  }

  /* -- sections 3 and 4: signatures and files ----------------------------------------- */
  var BEGIN = "-----BEGIN PBEM FILE-----", END = "-----END PBEM FILE-----";
  function parseRecord(text) {
    var lines = text.split("\n"), party = null, entries = [], cur = null;
    if (lines[0].indexOf("pbem game record") !== 0) throw new Fail("record", "not a pbem game record");
    for (var i = 0; i < lines.length; i++) {
      var ln = lines[i], m = /^== entry (\d+) of (\d+): (.+)$/.exec(ln);
      if (m) { cur = { path: m[3], lines: [] }; entries.push(cur); continue; }
      if (/^== end of record/.test(ln)) { cur = null; continue; }
      if (cur) cur.lines.push(ln);
      else if (ln.indexOf("archive of: ") === 0 && party === null) party = ln.slice(12);
    }
    if (!entries.length) throw new Fail("record", "holds no signed file");
    return { party: party, entries: entries };
  }
  function openEntry(e) {
    var b = e.lines.indexOf(BEGIN), x = e.lines.indexOf(END);
    if (b < 0 || x < b) throw new Error("no armored block");
    var body = e.lines.slice(b + 1, x);
    /* docs/records.md: the armored lines are 64 columns (the last one 1 to 64); pbem requires
       each stored file to be exactly its canonical text */
    for (var i = 0; i < body.length; i++)
      if (body[i].length > 64 || !body[i].length || (i < body.length - 1 && body[i].length !== 64))
        throw new Error("the armored block is not in canonical form (64 columns a line)");
    var b64 = body.join("");
    var envBytes = b64decode(b64, "the armored block");
    var env = decodeCanonical(envBytes, "the envelope");
    fields(env, "payload sig v", "the envelope");
    if (env.v !== 1) throw new Error("unsupported format version " + env.v);
    var payload = b64decode(env.payload, "the payload");
    var sig = b64decode(env.sig, "the signature");
    if (sig.length !== 64) throw new Error("the signature has " + sig.length + " bytes, expected 64");
    var p = decodeCanonical(payload, "the payload");
    var type = checkPayload(p);
    return { path: e.path, payload: payload, sig: sig, p: p, type: type };
  }
  async function signatureOk(f, pub) {
    var input = concat([ascii("PBEMSIG1"), lp(ascii(NAMESPACE[f.type])), lp(ascii("sha256")),
                        lp(await H(f.payload))]);
    return ed25519Verify(pub, f.sig, input);
  }

  /* -- section 6: onions and dice ----------------------------------------------------- */
  /* Each label's generations: the genesis onion, then one per renewal (section 4.4). A
     generation covers the files after its base; file k uses element k - base. */
  function Onions(bind) { this.bind = bind; this.tips = {}; this.gens = {}; this.used = []; }
  Onions.prototype.commit = function (label, c) {
    var tip = unhex(c.tip, 32, "dice commitment");
    this.used.forEach(function (u) { if (equal(u, tip)) throw new Error("two dice commitments of this game are equal"); });
    this.tips[label] = tip; this.used.push(tip);
    this.gens[label] = [{ base: 0, length: c.length, tip: tip, revealed: { 0: tip } }];
  };
  Onions.prototype.locate = function (label, k) {
    var gs = this.gens[label], g = gs.length - 1;
    while (g > 0 && gs[g].base >= k) g--;
    var idx = k - gs[g].base;
    if (idx >= gs[g].length) throw new Error(label + "'s dice commitment is exhausted at file " + k);
    return { g: g, idx: idx, gen: gs[g], hl: g ? label + "#" + g : label };
  };
  Onions.prototype.renew = async function (sr, pubs, gameId, base, sender) {
    fields(sr, "renewal sig", "a renewal");
    var r = sr.renewal;
    fields(r, "base game_id generation label length party tip type", "a renewal");
    if (r.type !== "pbem/renewal/v1") throw new Error("a renewal of an unknown type");
    if (sender !== null && r.party !== sender) throw new Error("carries a renewal of " + r.label + ", which is not " + sender + "'s dice commitment");
    if (r.game_id !== gameId) throw new Error("renews a commitment of another game");
    if (!isStr(r.label) || !(r.label in this.gens) || r.label.split("/")[0] !== r.party) throw new Error("renews " + r.label + ", which is not a dice commitment of " + r.party);
    if (base !== null && r.base !== base) throw new Error("renewal of " + r.label + " names file " + r.base + ", but is carried by file " + base);
    var gs = this.gens[r.label], cur = gs[gs.length - 1];
    if (r.generation !== gs.length) throw new Error("renewal of " + r.label + " is generation " + r.generation + ", expected " + gs.length);
    if (!isInt(r.base) || !(cur.base < r.base && r.base < cur.base + cur.length)) throw new Error("renewal of " + r.label + " at file " + r.base + " is outside its current commitment: exhausted");
    if (!isInt(r.length) || r.length < 16 || r.length > 1048576) throw new Error("renewal of " + r.label + " has a bad length");
    var tip = unhex(r.tip, 32, "renewal tip");
    this.used.forEach(function (u) { if (equal(u, tip)) throw new Error("renewal of " + r.label + " reuses a dice commitment already made in this game"); });
    var sig = b64decode(sr.sig, "a renewal signature");
    var input = concat([ascii("PBEMSIG1"), lp(ascii("pbem-renewal-v1")), lp(ascii("sha256")), lp(await H(ascii(canon(r))))]);
    if (sig.length !== 64 || !(r.party in pubs) || !(await ed25519Verify(pubs[r.party], sig, input)))
      throw new Error("renewal of " + r.label + " is not signed by " + r.party + "'s key");
    gs.push({ base: r.base, length: r.length, tip: tip, revealed: { 0: tip } });
    this.used.push(tip);
  };
  Onions.prototype.step = async function (label, i, next) {
    return H(concat([lp(ascii("pbem/v1/onion")), lp(ascii(this.bind)), lp(ascii(label)), lp(u32(i)), lp(next)]));
  };
  Onions.prototype.walk = async function (label, k, ek, j) {   /* e[k] -> e[j], j <= k */
    var e = ek;
    for (var i = k - 1; i >= j; i--) e = await this.step(label, i, e);
    return e;
  };
  Onions.prototype.reveal = async function (label, k, ek) {
    if (!(label in this.gens)) throw new Error("reveals " + label + ", which committed no dice");
    var L = this.locate(label, k), r = L.gen.revealed;
    var j = Math.max.apply(null, Object.keys(r).map(Number));   /* the latest revealed index */
    if (j >= L.idx) throw new Error("reveals element " + k + " of " + label + " again");
    if (!equal(await this.walk(L.hl, L.idx, ek, j), r[j]))
      throw new Error("the dice reveal does not match " + label + "'s commitment" + (L.g ? " (generation " + L.g + ")" : ""));
    r[L.idx] = ek;
  };
  Onions.prototype.element = async function (label, k) {   /* the element keying file k, from a later reveal */
    var L = this.locate(label, k), r = L.gen.revealed, best = null;
    for (var key in r) { var i = Number(key); if (i >= L.idx && (best === null || i < best)) best = i; }
    if (best === null) return null;
    return this.walk(L.hl, best, r[best], L.idx);
  };
  Onions.prototype.proves = async function (label, k, ek) {  /* a share from a view */
    var L = this.locate(label, k), j = null, r = L.gen.revealed;
    for (var key in r) { var i = Number(key); if (i <= L.idx && (j === null || i > j)) j = i; }
    if (!equal(await this.walk(L.hl, L.idx, ek, j), r[j])) return false;
    r[L.idx] = ek;                                           /* proven: later proofs stop here */
    return true;
  };

  async function diceSalt(gameId) { return H(concat([lp(ascii("pbem/v1/dice-salt")), lp(ascii(gameId))])); }
  async function fileKey(gameId, cls, shares, fileHash, seq) {
    var parts = [lp(ascii("pbem/v1/dice-key")), lp(ascii(cls))];
    shares.forEach(function (s) { parts.push(lp(s)); });
    parts.push(lp(fileHash), u64(seq));
    return hmac(await diceSalt(gameId), concat(parts));
  }
  var TWO64 = 1n << 64n;
  async function roll(key, action, index, sides) {
    if (!isInt(sides) || sides < 2 || sides > 0xffffffff) throw new Error("a die with " + sides + " sides");
    var n = BigInt(sides), limit = TWO64 - (TWO64 % n);
    for (var retry = 0; ; retry++) {
      var b = await hmac(key, concat([lp(ascii("pbem.dice.v1")), u32(action), u32(index), u32(sides), u32(retry)]));
      var dv = new DataView(b.buffer);
      for (var w = 0; w < 4; w++) {
        var word = dv.getBigUint64(8 * w);
        if (word < limit) return Number(word % n) + 1;
      }
    }
  }

  /* -- section 5: genesis and chain; section 8: the archive ---------------------------- */
  async function verify(text, onProgress) {
    var counts = { files: 0, signatures: 0, chain: 0, reveals: 0, renewals: 0, dice: 0, views: 0, rejections: 0 };
    var progress = onProgress || function () {};
    var current = "record";
    try {
      if (!subtle) throw new Fail("record", "this browser has no WebCrypto (open the page from a file or https)");
      try {
        await subtle.importKey("raw", new Uint8Array(32), { name: "Ed25519" }, false, ["verify"]);
      } catch (e) {
        throw new Fail("record", "this browser cannot check Ed25519 signatures (WebCrypto Ed25519 is missing); use pbem verify");
      }
      var rec = parseRecord(text);
      var files = [];
      for (var i = 0; i < rec.entries.length; i++) {
        current = rec.entries[i].path;
        try { files.push(openEntry(rec.entries[i])); }
        catch (e) { if (e instanceof Fail) throw e; throw new Fail(current, e.message); }
      }
      counts.files = files.length;
      /* the genesis */
      var prop = files[0];
      current = prop.path;
      if (prop.type !== "pbem/proposal/v1") throw new Fail(current, "the first file is not a proposal");
      var P = prop.p, pubs = {}, sides = [];
      P.parties.forEach(function (k) {
        if (k.party in pubs) throw new Fail(current, "party " + k.party + " appears twice");
        pubs[k.party] = unhex(k.pub, 32, "public key");
        if (weakKey(pubs[k.party])) throw new Fail(current, "the public key of " + k.party + " is a weak key (a small-order point: anyone could sign as that party)");
        if (k.party !== "host") sides.push(k.party);
      });
      sides.sort();
      if (!(P.proposer in pubs)) throw new Fail(current, "the proposer is not a party");
      if (!(await signatureOk(prop, pubs[P.proposer]))) throw new Fail(current, "bad signature (not signed by " + P.proposer + "'s key)");
      counts.signatures++;
      var onions = new Onions(P.nonce);
      function commitAll(party, p) {
        onions.commit(party, p.onion);
        Object.keys(p.class_onions).sort().forEach(function (c) { onions.commit(party + "/" + c, p.class_onions[c]); });
      }
      try { commitAll(P.proposer, P); } catch (e) { throw new Fail(current, e.message); }
      var propHash = await H(prop.payload);
      var acceptances = {};
      var turns = [], views = [], rejections = [], refused = [], evidence = [];
      for (i = 1; i < files.length; i++) {
        var f = files[i], folder = f.path.split("/")[0];
        if (folder === "evidence") evidence.push(f);
        else if (folder === "rejected") refused.push(f);
        else if (f.type === "pbem/accept/v1") {
          current = f.path;
          var a = f.p;
          if (!equal(unhex(a.proposal, 32, "proposal hash"), propHash)) throw new Fail(current, "accepts a different proposal");
          if (!(a.party in pubs) || a.party === P.proposer) throw new Fail(current, a.party + " is not expected to accept");
          if (a.party in acceptances) throw new Fail(current, "a second acceptance of " + a.party);
          if (!(await signatureOk(f, pubs[a.party]))) throw new Fail(current, "bad signature (not signed by " + a.party + "'s key)");
          if ("fact_commit" in a && P.mode !== "sealed") throw new Fail(current, "a fact-key commitment outside a sealed game");
          counts.signatures++;
          try { commitAll(a.party, a); } catch (e) { throw new Fail(current, e.message); }
          acceptances[a.party] = f;
        } else if (f.type === "pbem/turn/v1") turns.push(f);
        else if (f.type === "pbem/view/v1") views.push(f);
        else if (f.type === "pbem/reject/v1") rejections.push(f);
        else throw new Fail(f.path, "a second proposal");
      }
      var acceptors = Object.keys(pubs).filter(function (k) { return k !== P.proposer; }).sort();
      var missing = acceptors.filter(function (k) { return !(k in acceptances); });
      if (missing.length) {
        if (turns.length || views.length) throw new Fail(prop.path, "the genesis lacks the acceptance of " + missing.join(", "));
        return { ok: true, counts: counts, note: "the genesis is not complete" };
      }
      var parts = [lp(propHash)];
      for (i = 0; i < acceptors.length; i++)
        parts.push(lp(ascii(acceptors[i])), lp(await H(acceptances[acceptors[i]].payload)));
      var genesisHash = await H(concat(parts));
      var gameId = hex((await H(concat([lp(ascii("pbem/v1/game-id")), lp(genesisHash)]))).slice(0, 16));
      var hosted = P.mode === "hosted";
      var archiveOf = rec.party;
      var playerRecord = hosted && archiveOf !== "host";
      progress("genesis verified; game " + gameId);

      /* the chain (a hosted player's record holds only its own files) */
      var bySeq = {}, hashOf = {}, prevHash = genesisHash, lastSeq = 0, chainRenewals = [];
      for (i = 0; i < turns.length; i++) {
        var tf = turns[i], t = tf.p;
        current = tf.path;
        if (t.game_id !== gameId) throw new Fail(current, "belongs to another game (" + t.game_id + ")");
        if (!(t.sender in pubs)) throw new Fail(current, "unknown sender " + t.sender);
        if (!(await signatureOk(tf, pubs[t.sender]))) throw new Fail(current, "bad signature (not signed by " + t.sender + "'s key)");
        counts.signatures++;
        if (P.mode !== "sealed")
          ["commits", "openings", "final"].forEach(function (k) {
            if (k in t) throw new Fail(current, "carries " + k + ", which only the files of a sealed game carry");
          });
        if (playerRecord) {
          if (t.sender !== archiveOf) throw new Fail(current, "a player's record holds only its own files");
          if (t.seq <= lastSeq) throw new Fail(current, "out of order");
        } else {
          if (t.seq !== lastSeq + 1) throw new Fail(current, "out of order: expected file " + (lastSeq + 1) + ", got " + t.seq);
          if (!equal(unhex(t.prev, 32, "previous-file hash"), prevHash)) throw new Fail(current, "does not follow the previous file (previous-file hash differs)");
          if (!hosted) {
            /* Who may send depends on the rules (the side the game waits for), which this page
               does not replay; what it checks is the dice part: nobody sends again before the
               other side has revealed the dice of its own previous file. */
            if (sides.indexOf(t.sender) < 0) throw new Fail(current, "out of turn: " + t.sender + " is not a player");
            var before = bySeq[t.seq - 1];
            if (before && before.p.sender === t.sender && t.results !== null && t.results.rolls.length)
              throw new Fail(current, "out of turn: " + t.sender + " sent file " + t.seq + " before the other side revealed the dice of its file " + (t.seq - 1));
          } else if ((t.seq % 2 === 0) !== (t.sender === "host")) {
            throw new Fail(current, "out of turn: file " + t.seq + (t.seq % 2 ? " must come from a player" : " must come from the host"));
          }
          var needs = hosted ? t.sender === "host" : t.seq > 1;
          if (needs && (t.results === null || t.results.seq !== t.seq - 1)) throw new Fail(current, "the results of file " + (t.seq - 1) + " are missing");
          if (!needs && t.results !== null) throw new Fail(current, "carries results it may not carry");
        }
        var classes = Object.keys(onions.tips).filter(function (l) { return l.indexOf(t.sender + "/") === 0; })
          .map(function (l) { return l.slice(t.sender.length + 1); }).sort();
        if (Object.keys(t.class_reveals).sort().join(" ") !== classes.join(" ")) throw new Fail(current, "must reveal " + t.sender + "'s class onions");
        try {
          await onions.reveal(t.sender, t.seq, unhex(t.reveal, 32, "dice reveal"));
          counts.reveals++;
          for (var c = 0; c < classes.length; c++) {
            await onions.reveal(t.sender + "/" + classes[c], t.seq, unhex(t.class_reveals[classes[c]], 32, "dice reveal"));
            counts.reveals++;
          }
          for (var q2 = 0; q2 < (t.renewals || []).length; q2++) {
            await onions.renew(t.renewals[q2], pubs, gameId, t.seq, t.sender);
            chainRenewals.push(t.renewals[q2]);
            counts.renewals++;
          }
        } catch (e) { throw new Fail(current, e.message); }
        prevHash = await H(tf.payload);
        bySeq[t.seq] = tf; hashOf[t.seq] = prevHash; lastSeq = t.seq;
        counts.chain++;
        if (i % 20 === 0) progress("file " + t.seq + " verified");
      }

      /* every die the chain's results state (peer: file k+1 carries file k's; hosted: the
         host's record k+1 carries player file k's) */
      function shareLabels(seq, cls) {
        var parties = hosted ? [bySeq[seq].p.sender, "host"].sort() : sides;
        return parties.map(function (p) { return (p + "/" + cls) in onions.tips ? p + "/" + cls : p; });
      }
      if (!playerRecord) {
        for (var s = 2; s <= lastSeq; s++) {
          var carrier = bySeq[s], res = carrier.p.results;
          if (res === null) continue;
          current = carrier.path;
          var k = res.seq, keys = {};
          for (var r = 0; r < res.rolls.length; r++) {
            var d = res.rolls[r], cls = d.visible_to;
            if (!isStr(cls)) throw new Fail(current, "a roll without a visibility class");
            if (!keys[cls]) {
              var labels = shareLabels(k, cls), shares = [];
              for (var q = 0; q < labels.length; q++) {
                var e2 = await onions.element(labels[q], k);
                if (e2 === null) throw new Fail(current, "the dice share of " + labels[q] + " for file " + k + " is not revealed");
                shares.push(e2);
              }
              keys[cls] = await fileKey(gameId, cls, shares, hashOf[k], k);
            }
            var got = await roll(keys[cls], d.action, d.index, d.sides);
            if (got !== d.value)
              throw new Fail(current, "die " + k + "." + d.action + "." + d.index + " (" + d.purpose + ") is stated as " + d.value + " but the dice commitments give " + got);
            counts.dice++;
          }
        }
      }

      /* views (hosted): the host's signature, and every die they show, from their proofs */
      var own = {};
      if (playerRecord) turns.forEach(function (tf) { own[tf.p.seq] = tf; });
      var lastView = {}, seenRenewals = [], seenAt = {}, lastPlayerView = -1;
      for (i = 0; i < views.length; i++) {
        var vf = views[i], v = vf.p;
        current = vf.path;
        if (!hosted) throw new Fail(current, "a view file in a peer game");
        if (v.game_id !== gameId) throw new Fail(current, "belongs to another game");
        if (!(await signatureOk(vf, pubs.host))) throw new Fail(current, "bad signature (not signed by the host's key)");
        counts.signatures++;
        if (playerRecord && v.side !== archiveOf) throw new Fail(current, "is " + v.side + "'s view, not " + archiveOf + "'s");
        if (sides.indexOf(v.side) < 0) throw new Fail(current, "is the view of " + v.side + ", which is not a side of this game");
        if (v.seq === 0 && !equal(unhex(v.tip, 32, "tip"), genesisHash)) throw new Fail(current, "the genesis hash it names is not the genesis");
        if (v.view_seq !== v.seq || (v.side in lastView && v.seq <= lastView[v.side])) throw new Fail(current, "views out of order");
        lastView[v.side] = v.seq;
        if (!playerRecord && v.seq <= lastSeq && !equal(unhex(v.tip, 32, "tip"), v.seq ? hashOf[v.seq] : genesisHash))
          throw new Fail(current, "the chain tip it names is not file " + v.seq);
        if (playerRecord && own[v.seq + 1] && !equal(unhex(own[v.seq + 1].p.prev, 32, "hash"), unhex(v.tip, 32, "tip")))
          throw new Fail(own[v.seq + 1].path, "does not follow the view of file " + v.seq);
        /* renewals: the referee's archive must show exactly the chain's up to the view's
           file; a player's, what earlier views showed, then new ones signed by their party,
           none of a file an earlier view already covered */
        var vrs = v.renewals || [];
        if (!playerRecord) {
          var want = chainRenewals.filter(function (sr) { return sr.renewal.base <= v.seq; }).map(canon).join("\n");
          if (vrs.map(canon).join("\n") !== want) throw new Fail(current, "its dice renewals are not those of the chain");
        } else {
          if (vrs.slice(0, seenRenewals.length).map(canon).join("\n") !== seenRenewals.map(canon).join("\n"))
            throw new Fail(current, "its dice renewals differ from those an earlier view carried");
          for (var q3 = seenRenewals.length; q3 < vrs.length; q3++) {
            var nr = vrs[q3].renewal;
            if (!nr || !isInt(nr.base) || nr.base > v.seq) throw new Fail(current, "carries a renewal after the file it shows");
            if (nr.base <= lastPlayerView) throw new Fail(current, "a dice renewal of file " + nr.base + " that the earlier view of file " + lastPlayerView + " did not carry");
            var gsx = onions.gens[nr.label];
            var mine = gsx && nr.party === archiveOf && gsx[nr.generation];
            if (mine) {       /* the player's own renewal: already taken from its own file */
              if (!equal(mine.tip, unhex(nr.tip, 32, "renewal tip")) || mine.base !== nr.base) throw new Fail(current, "shows a renewal of yours that your file does not carry");
            } else {
              try { await onions.renew(vrs[q3], pubs, gameId, null, null); }
              catch (e) { throw new Fail(current, e.message); }
            }
            seenAt[nr.label + "#" + nr.generation] = v.seq;
          }
          seenRenewals = vrs.slice();
          lastPlayerView = Math.max(lastPlayerView, v.seq);
        }
        /* one proof per file whose rolls the view lists, whose shares are exactly the elements
           keying the classes listed (docs/protocol.md section 6, hosted dice proofs): never
           another side's or nobody's class onion, which would open dice hidden from this side */
        var proofs = Object.create(null), wantShares = Object.create(null);
        v.proofs.forEach(function (pr) {
          if (pr.seq in proofs) throw new Fail(current, "two dice proofs for file " + pr.seq);
          proofs[pr.seq] = pr; wantShares[pr.seq] = Object.create(null);
        });
        v.rolls.forEach(function (vr) {
          var pf = proofs[vr.seq];
          if (!pf || !isStr(vr.visible_to)) return;       /* refused below */
          [pf.sender, "host"].forEach(function (party) {
            var lb = (party + "/" + vr.visible_to) in onions.tips ? party + "/" + vr.visible_to : party;
            wantShares[vr.seq][lb] = true;
          });
        });
        for (var pq in proofs) {
          var extra = Object.keys(proofs[pq].shares).filter(function (lb) { return !wantShares[pq][lb]; });
          if (!Object.keys(wantShares[pq]).length) throw new Fail(current, "a dice proof for file " + pq + ", whose rolls it does not show");
          if (extra.length) throw new Fail(current, "the dice proof of file " + pq + " holds shares it may not show (" + extra.sort().join(", ") + ")");
        }
        var vkeys = {};
        for (var j = 0; j < v.rolls.length; j++) {
          var vr = v.rolls[j], pf = proofs[vr.seq];
          if (vr.visible_to !== "all" && vr.visible_to !== v.side) throw new Fail(current, "shows a die hidden from " + v.side);
          if (!pf) throw new Fail(current, "no dice proof for file " + vr.seq);
          var fh;
          if (own[vr.seq]) {
            if (pf.sender !== archiveOf || pf.file_hash !== hex(await H(own[vr.seq].payload)))
              throw new Fail(current, "states another hash or sender for your own file " + vr.seq);
            fh = await H(own[vr.seq].payload);
          } else if (!playerRecord && bySeq[vr.seq]) {
            if (pf.sender !== bySeq[vr.seq].p.sender || pf.file_hash !== hex(hashOf[vr.seq]))
              throw new Fail(current, "states another hash or sender for file " + vr.seq);
            fh = hashOf[vr.seq];
          } else {
            fh = unhex(pf.file_hash, 32, "file hash");
          }
          var ck = vr.seq + "|" + vr.visible_to;
          if (!vkeys[ck]) {
            var parties2 = [pf.sender, "host"].sort(), sh = [];
            for (var z = 0; z < parties2.length; z++) {
              var lb = (parties2[z] + "/" + vr.visible_to) in onions.tips ? parties2[z] + "/" + vr.visible_to : parties2[z];
              if (own[vr.seq] && lb === archiveOf) { sh.push(unhex(own[vr.seq].p.reveal, 32, "reveal")); continue; }
              var hx = pf.shares[lb];
              if (!isStr(hx)) throw new Fail(current, "the dice proof of file " + vr.seq + " lacks " + lb + "'s share");
              var el = unhex(hx, 32, "dice share");
              var loc;
              try { loc = onions.locate(lb, vr.seq); } catch (e) { throw new Fail(current, e.message); }
              if (playerRecord && own[vr.seq] && loc.g > 0 && !(seenAt[lb + "#" + loc.g] < vr.seq))
                throw new Fail(current, "keys your file " + vr.seq + " with a renewal of " + lb + " that no view showed you before you sent it");
              if (!(await onions.proves(lb, vr.seq, el))) throw new Fail(current, lb + "'s dice share for file " + vr.seq + " does not match its commitment");
              sh.push(el);
            }
            vkeys[ck] = await fileKey(gameId, vr.visible_to, sh, fh, vr.seq);
          }
          var g2 = await roll(vkeys[ck], vr.action, vr.index, vr.sides);
          if (g2 !== vr.value) throw new Fail(current, "die " + vr.seq + "." + vr.action + "." + vr.index + " (" + vr.purpose + ") is stated as " + vr.value + " but the dice commitments give " + g2);
          counts.dice++;
        }
        counts.views++;
      }

      /* rejections and the refused files they name (hosted mode only: docs/records.md, "One
         file per path, refused files only with their rejection") */
      var refusedByHash = {}, named = {};
      for (i = 0; i < refused.length; i++) {
        current = refused[i].path;
        var rp = refused[i].p;
        if (refused[i].type !== "pbem/turn/v1" || !(rp.sender in pubs) || !(await signatureOk(refused[i], pubs[rp.sender])))
          throw new Fail(current, "not a turn file signed by its sender");
        counts.signatures++;
        refusedByHash[hex(await H(refused[i].payload))] = refused[i];
      }
      for (i = 0; i < rejections.length; i++) {
        current = rejections[i].path;
        var rj = rejections[i].p;
        if (!hosted || rj.game_id !== gameId || !(await signatureOk(rejections[i], pubs.host)))
          throw new Fail(current, "not a rejection signed by the host of this game");
        counts.signatures++;
        var rf = refusedByHash[rj.file];
        if (!rf) throw new Fail(current, "the refused file it names is not in the record");
        if (rf.p.seq !== rj.seq || rf.p.sender !== rj.sender || rf.p.game_id !== gameId)
          throw new Fail(current, "names file " + rj.seq + " from " + rj.sender + ", but the refused file it names is file " + rf.p.seq + " from " + rf.p.sender);
        named[rj.file] = true;
        counts.rejections++;
      }
      /* A second, different file of one sequence number, validly signed by the sender of the
         chain's file of that number and refused by no signed rejection, is equivocation
         (docs/protocol.md section 5): proof that its sender cheated, never a verified record. */
      var chainFile = function (seq) { return playerRecord ? own[seq] : bySeq[seq]; };
      async function equivocation(f) {
        var q = f.p;
        if (f.type !== "pbem/turn/v1" || q.game_id !== gameId || !isInt(q.seq)) return null;
        var old = chainFile(q.seq);
        if (!old || old.p.sender !== q.sender || equal(old.payload, f.payload)) return null;
        if (named[hex(await H(f.payload))]) return null;
        return "equivocation: " + q.sender + " signed two different files with sequence number " + q.seq + " (" + old.path + ")";
      }
      for (i = 0; i < refused.length; i++) {
        current = refused[i].path;
        var fh2 = hex(await H(refused[i].payload));
        if (named[fh2]) continue;
        var eq = await equivocation(refused[i]);
        if (eq) throw new Fail(current, eq);
        if (!hosted) throw new Fail(current, "a peer record keeps no refused files (only a referee's signed rejection puts a file under rejected/)");
        /* what an interrupted command may leave in a hosted archive: a copy of the chain's own
           file or, in the referee's, a validly signed file beyond the chain */
        var cf = chainFile(refused[i].p.seq);
        var leftover = cf ? equal(cf.payload, refused[i].payload) : !playerRecord && refused[i].p.seq > lastSeq;
        if (!leftover) throw new Fail(current, "not the refused file of any signed rejection in the record");
      }
      var viewOf = {};
      views.forEach(function (vf) { viewOf[vf.p.side + "|" + vf.p.seq] = vf; });
      for (i = 0; i < evidence.length; i++) {
        current = evidence[i].path;
        var ep = evidence[i].p, signer = {"pbem/proposal/v1": ep.proposer, "pbem/accept/v1": ep.party,
          "pbem/turn/v1": ep.sender, "pbem/view/v1": "host", "pbem/reject/v1": "host"}[ep.type];
        if (!(signer in pubs) || !(await signatureOk(evidence[i], pubs[signer]))) throw new Fail(current, "evidence not signed by a party of this game");
        counts.signatures++;
        var eq2 = await equivocation(evidence[i]);
        if (eq2) throw new Fail(current, eq2);
        var ov = ep.type === "pbem/view/v1" && ep.game_id === gameId && viewOf[ep.side + "|" + ep.seq];
        if (ov && !equal(ov.payload, evidence[i].payload))
          throw new Fail(current, "equivocation: the referee signed two different views of file " + ep.seq + " for " + ep.side + " (" + ov.path + ")");
      }
      return { ok: true, counts: counts, gameId: gameId };
    } catch (e) {
      if (e instanceof Fail) return { ok: false, file: e.file, problem: e.problem, counts: counts };
      return { ok: false, file: current, problem: (e && e.message) || String(e), counts: counts };
    }
  }

  /* The test vectors of docs/protocol.md section 6: the page checks itself first. */
  async function selfTest() {
    var gid = "00112233445566778899aabbccddeeff";
    var a1 = new Uint8Array(32).fill(0xa1), b2 = new Uint8Array(32).fill(0xb2), c3 = new Uint8Array(32).fill(0xc3);
    var problems = [];
    if (hex(await diceSalt(gid)) !== "9370dbc057422424ef598b6dac6e9338a69587c32402da68fee2bac3b76ee8b5") problems.push("dice salt");
    var k = await fileKey(gid, "all", [a1, b2], c3, 7);
    if (hex(k) !== "b5d4ce9100d998b3c9617d13436470a5502368f8a17059a4d2ee24b871df485e") problems.push("file key");
    var ten = [];
    for (var i = 0; i < 10; i++) ten.push(await roll(k, 0, i, 6));
    if (ten.join(" ") !== "6 1 5 6 1 5 1 3 6 3") problems.push("d6 rolls");
    if ((await roll(k, 2, 5, 20)) !== 11) problems.push("d20 roll");
    if (hex(await fileKey(gid, "axis", [a1, b2], c3, 7)) !== "ce7796b2630ad2e4847a11fc755bebef8098c72722165d4e162cb0492d1621a3") problems.push("class key");
    var o = new Onions(gid);
    if (hex(await o.step("allied", 7, new Uint8Array(32).fill(3))) !== "9ac4b158c92a50b3fbdf94496e9386477ee7863a973cb8759626ec00836a8b88") problems.push("onion step");
    var id = hex((await H(concat([lp(ascii("pbem/v1/game-id")), lp(new Uint8Array(32).fill(0xd4))]))).slice(0, 16));
    if (id !== "847c27562c24ca85791d9a1bad281cce") problems.push("game id");
    return problems;
  }

  return { verify: verify, selfTest: selfTest, canon: canon, decodeCanonical: decodeCanonical };
})();
if (typeof module !== "undefined") module.exports = PbemVerifier;

// Parser of the Cosmos DB NoSQL query language (the grammar the service and the
// official SDKs publish: SELECT [DISTINCT] [TOP] ... FROM ... JOIN ... WHERE ...
// GROUP BY ... ORDER BY ... OFFSET ... LIMIT), producing a plain-object AST that
// query-eval.js runs and query-print.js prints back in the service's format.
// Pure: no I/O. Errors are QuerySyntaxError with the service's code ("SC1001"...)
// and the character span, so the caller can answer 400 the way the service does.
"use strict";

class QuerySyntaxError extends Error {
  constructor(code, message, start, end) {
    super(message);
    this.name = "QuerySyntaxError";
    this.code = code;
    this.start = start;
    this.end = end;
  }
}

// Keywords are case-insensitive except the literals and `udf` (lower case only),
// as in the service grammar. ALL, FIRST and LAST may also be identifiers.
const KEYWORDS = new Set([
  "ALL", "AND", "ARRAY", "AS", "ASC", "BETWEEN", "BY", "DESC", "DISTINCT", "ESCAPE",
  "EXISTS", "FIRST", "FROM", "GROUP", "IN", "JOIN", "LAST", "LEFT", "LIKE", "LIMIT",
  "NOT", "OFFSET", "OR", "ORDER", "RANK", "RIGHT", "SELECT", "TOP", "VALUE", "WHERE"
]);
const IDENTIFIER_KEYWORDS = new Set(["ALL", "FIRST", "LAST"]);
const CASED_KEYWORDS = new Set(["true", "false", "null", "undefined", "udf"]);

const PUNCT = [">>>", "??", "||", "!=", "<>", "<=", ">=", "<<", ">>",
  "(", ")", "[", "]", "{", "}", ",", ".", ":", "?", "*", "/", "%", "+", "-", "~",
  "=", "<", ">", "&", "|", "^"];

function tokenize(text) {
  const tokens = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    if (ch === " " || ch === "\t" || ch === "\r" || ch === "\n") { i += 1; continue; }
    if (ch === "-" && text[i + 1] === "-") { // line comment
      while (i < n && text[i] !== "\n") i += 1;
      continue;
    }
    const start = i;
    if (/[A-Za-z_]/.test(ch)) {
      while (i < n && /[A-Za-z0-9_]/.test(text[i])) i += 1;
      const word = text.slice(start, i);
      const upper = word.toUpperCase();
      if (CASED_KEYWORDS.has(word)) tokens.push({ t: "kw", v: word, start, end: i });
      else if (KEYWORDS.has(upper)) tokens.push({ t: "kw", v: upper, word, start, end: i });
      else tokens.push({ t: "id", v: word, start, end: i });
      continue;
    }
    if (ch === "@") {
      i += 1;
      while (i < n && /[A-Za-z0-9_]/.test(text[i])) i += 1;
      const name = text.slice(start, i);
      if (name.length < 2 || !/^@[A-Za-z_]/.test(name)) {
        throw new QuerySyntaxError("SC1001", "Syntax error, incorrect syntax near '@'.", start, start + 1);
      }
      tokens.push({ t: "param", v: name, start, end: i });
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(text[i + 1] || ""))) {
      if (ch === "0" && (text[i + 1] === "x" || text[i + 1] === "X") && /[0-9a-fA-F]/.test(text[i + 2] || "")) {
        i += 2;
        while (i < n && /[0-9a-fA-F]/.test(text[i])) i += 1;
        tokens.push({ t: "num", v: parseInt(text.slice(start + 2, i), 16), raw: text.slice(start, i), start, end: i });
        continue;
      }
      while (i < n && /[0-9]/.test(text[i])) i += 1;
      if (text[i] === "." && /[0-9]/.test(text[i + 1] || "")) {
        i += 1;
        while (i < n && /[0-9]/.test(text[i])) i += 1;
      } else if (text[i] === "." && !/[A-Za-z_]/.test(text[i + 1] || "")) {
        i += 1; // "1." is a number
      }
      if ((text[i] === "e" || text[i] === "E") && /^[eE][+-]?[0-9]/.test(text.slice(i, i + 3))) {
        i += 1;
        if (text[i] === "+" || text[i] === "-") i += 1;
        while (i < n && /[0-9]/.test(text[i])) i += 1;
      }
      const raw = text.slice(start, i);
      tokens.push({ t: "num", v: Number(raw), raw, start, end: i });
      continue;
    }
    if (ch === "'" || ch === '"') {
      i += 1;
      let out = "";
      for (;;) {
        if (i >= n) throw new QuerySyntaxError("SC1001", `Syntax error, unclosed quotation mark.`, start, n);
        const c = text[i];
        if (c === ch) { i += 1; break; }
        if (c === "\\") {
          const e = text[i + 1];
          const simple = { '"': '"', "'": "'", "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
          if (e in simple) { out += simple[e]; i += 2; continue; }
          if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          throw new QuerySyntaxError("SC1001", "Syntax error, invalid escape sequence in a string literal.", i, i + 2);
        }
        out += c;
        i += 1;
      }
      tokens.push({ t: "str", v: out, start, end: i });
      continue;
    }
    if (ch === "{" && text.startsWith("{documentdb-formattableorderbyquery-filter}", i)) {
      // The placeholder the client must replace; left in a query it is a syntax error.
      throw new QuerySyntaxError("SC1001", "Syntax error, incorrect syntax near '{'.", i, i + 1);
    }
    const p = PUNCT.find(s => text.startsWith(s, i));
    if (!p) {
      throw new QuerySyntaxError("SC1001", `Syntax error, incorrect syntax near '${ch}'.`, i, i + 1);
    }
    tokens.push({ t: "p", v: p, start, end: i + p.length });
    i += p.length;
  }
  tokens.push({ t: "eof", v: "", start: n, end: n });
  return tokens;
}

const AGGREGATES = new Set(["COUNT", "SUM", "AVG", "MIN", "MAX", "MAKELIST", "MAKESET", "COUNTIF"]);

// Nesting limits, so that no query can exhaust the stack of the parser or of the
// evaluator (which recurse over the tree): limits of this server, generous for real
// queries.
const MAX_NESTING = 100; // nested expressions/subqueries while parsing
const MAX_TREE_DEPTH = 400; // depth of the finished tree (long operator chains too)

class Parser {
  constructor(text) {
    this.text = text;
    this.toks = tokenize(text);
    this.pos = 0;
    this.nesting = 0;
  }
  peek(k = 0) { return this.toks[Math.min(this.pos + k, this.toks.length - 1)]; }
  next() { const t = this.toks[this.pos]; if (this.pos < this.toks.length - 1) this.pos += 1; return t; }
  isKw(v, k = 0) { const t = this.peek(k); return t.t === "kw" && t.v === v; }
  isP(v, k = 0) { const t = this.peek(k); return t.t === "p" && t.v === v; }
  fail(tok) {
    const t = tok || this.peek();
    if (t.t === "eof") {
      throw new QuerySyntaxError("SC1001", "Syntax error, incorrect syntax near the end of the query.", t.start, t.end);
    }
    const near = t.t === "kw" && t.word ? t.word : this.text.slice(t.start, t.end);
    throw new QuerySyntaxError("SC1001", `Syntax error, incorrect syntax near '${near}'.`, t.start, t.end);
  }
  expectKw(v) { if (!this.isKw(v)) this.fail(); return this.next(); }
  expectP(v) { if (!this.isP(v)) this.fail(); return this.next(); }
  acceptKw(v) { if (this.isKw(v)) { this.next(); return true; } return false; }
  acceptP(v) { if (this.isP(v)) { this.next(); return true; } return false; }

  identifier() {
    const t = this.peek();
    if (t.t === "id") { this.next(); return t.v; }
    if (t.t === "kw" && IDENTIFIER_KEYWORDS.has(t.v)) { this.next(); return t.word; }
    return this.fail();
  }
  isIdentifier(k = 0) {
    const t = this.peek(k);
    return t.t === "id" || (t.t === "kw" && IDENTIFIER_KEYWORDS.has(t.v));
  }

  program() {
    const q = this.query();
    if (this.peek().t !== "eof") this.fail();
    return q;
  }

  query() {
    const start = this.peek().start;
    this.expectKw("SELECT");
    const q = { type: "query", distinct: false, top: null, select: null, from: null, where: null,
      groupBy: null, orderBy: null, offset: null, limit: null, start };
    if (this.acceptKw("DISTINCT")) q.distinct = true;
    if (this.isKw("TOP")) {
      const topTok = this.next();
      q.top = this.countSpec("TOP", topTok);
    }
    if (this.isP("*")) {
      const t = this.next();
      q.select = { kind: "star", start: t.start, end: t.end };
    } else if (this.acceptKw("VALUE")) {
      q.select = { kind: "value", expr: this.scalar() };
    } else {
      const items = [];
      do {
        const s = this.peek().start;
        const expr = this.scalar();
        let alias = null;
        if (this.acceptKw("AS")) alias = this.identifier();
        items.push({ expr, alias, start: s, end: this.toks[this.pos - 1].end });
      } while (this.acceptP(","));
      q.select = { kind: "list", items };
    }
    if (this.acceptKw("FROM")) q.from = this.collectionExpression();
    if (this.acceptKw("WHERE")) q.where = this.scalar();
    if (this.isKw("GROUP")) {
      this.next();
      this.expectKw("BY");
      q.groupBy = [this.scalar()];
      while (this.acceptP(",")) q.groupBy.push(this.scalar());
    }
    if (this.isKw("ORDER")) {
      this.next();
      this.expectKw("BY");
      if (this.isKw("RANK")) {
        const t = this.next();
        throw new QuerySyntaxError(null, "ORDER BY RANK (hybrid search) is not supported by this server.", t.start, t.end);
      }
      q.orderBy = [];
      do {
        const s = this.peek().start;
        const expr = this.scalar();
        let dir = null;
        if (this.acceptKw("ASC")) dir = "ASC";
        else if (this.acceptKw("DESC")) dir = "DESC";
        q.orderBy.push({ expr, dir, start: s, end: this.toks[this.pos - 1].end });
      } while (this.acceptP(","));
    }
    if (this.isKw("OFFSET")) {
      const t = this.next();
      q.offset = this.countSpec("OFFSET", t);
      const lt = this.expectKw("LIMIT");
      q.limit = this.countSpec("LIMIT", lt);
    }
    q.end = this.toks[this.pos - 1].end;
    return q;
  }

  // TOP / OFFSET / LIMIT take a non-negative integer literal or a parameter.
  countSpec(what, kwTok) {
    const t = this.peek();
    if (t.t === "param") { this.next(); return { type: "param", name: t.v, start: t.start, end: t.end }; }
    if (t.t === "num" && /^[0-9]+$/.test(t.raw)) {
      this.next();
      if (t.v > 4294967295) {
        const code = { TOP: "SC2060", OFFSET: "SC2062", LIMIT: "SC2061" }[what];
        const message = what === "TOP"
          ? "The count value provided for a TOP clause must be an integer."
          : `The ${what} count value exceeds the maximum allowed value.`;
        throw new QuerySyntaxError(code, message, t.start, t.end);
      }
      return { type: "lit", value: t.v, start: t.start, end: t.end };
    }
    if (t.t === "num") {
      const code = { TOP: "SC2060", OFFSET: "SC2062", LIMIT: "SC2061" }[what];
      throw new QuerySyntaxError(code, `The count value provided for a ${what} clause must be an integer.`, t.start, t.end);
    }
    return this.fail();
  }

  // collection_expression: collection [AS] alias | alias IN collection | ... JOIN ...
  collectionExpression() {
    const first = this.collectionItem(true);
    const sources = [first];
    while (this.acceptKw("JOIN")) sources.push(this.collectionItem(false));
    return sources;
  }

  collectionItem(isFrom) {
    const s = this.peek().start;
    if (this.isIdentifier() && this.isKw("IN", 1)) {
      const alias = this.identifier();
      this.next(); // IN
      const coll = this.collection();
      return { kind: "iter", alias, coll, isFrom, start: s, end: this.toks[this.pos - 1].end };
    }
    const coll = this.collection();
    let alias = null;
    if (this.acceptKw("AS")) alias = this.identifier();
    else if (this.isIdentifier()) alias = this.identifier();
    if (alias === null) {
      if (coll.type === "path") alias = coll.path.length ? String(coll.path[coll.path.length - 1]) : coll.root;
      else {
        const t = this.toks[this.pos - 1];
        throw new QuerySyntaxError("SC1001", "Syntax error, a subquery in FROM or JOIN needs an alias.", t.start, t.end);
      }
    }
    return { kind: "alias", alias, coll, isFrom, start: s, end: this.toks[this.pos - 1].end };
  }

  collection() {
    if (this.isP("(")) {
      this.next();
      const q = this.query();
      this.expectP(")");
      return { type: "subquery", query: q };
    }
    const root = this.identifier();
    const path = [];
    for (;;) {
      if (this.isP(".")) {
        this.next();
        path.push(this.propertyName());
      } else if (this.isP("[")) {
        this.next();
        const t = this.next();
        if (t.t === "num") path.push(t.v);
        else if (t.t === "str") path.push(t.v);
        else this.fail(t);
        this.expectP("]");
      } else break;
    }
    return { type: "path", root, path };
  }

  propertyName() {
    return this.identifier();
  }

  // ----- scalar expressions (precedence as the service grammar) -----
  scalar() {
    this.nesting += 1;
    try {
      if (this.nesting > MAX_NESTING) {
        const t = this.peek();
        throw new QuerySyntaxError(null, `The query nests expressions more than ${MAX_NESTING} levels deep, more than this server takes.`, t.start, t.end);
      }
      return this.scalarInner();
    } finally {
      this.nesting -= 1;
    }
  }

  scalarInner() {
    let e = this.logicalOr();
    for (;;) {
      if (this.isP("?")) {
        this.next();
        const cons = this.scalar();
        this.expectP(":");
        const alt = this.scalar();
        e = { type: "cond", test: e, cons, alt };
      } else if (this.isP("??")) {
        this.next();
        const right = this.logicalOr();
        e = { type: "coalesce", left: e, right };
      } else return e;
    }
  }

  logicalOr() {
    let e = this.logicalAnd();
    while (this.isKw("OR")) { this.next(); e = { type: "binary", op: "OR", left: e, right: this.logicalAnd() }; }
    return e;
  }

  logicalAnd() {
    let e = this.predicate();
    while (this.isKw("AND")) { this.next(); e = { type: "binary", op: "AND", left: e, right: this.predicate() }; }
    return e;
  }

  // binary [NOT] IN (...) | [NOT] LIKE | [NOT] BETWEEN x AND y
  predicate() {
    const left = this.binary(0);
    let not = false;
    if (this.isKw("NOT") && (this.isKw("IN", 1) || this.isKw("LIKE", 1) || this.isKw("BETWEEN", 1))) {
      this.next();
      not = true;
    }
    if (this.isKw("IN")) {
      this.next();
      this.expectP("(");
      const list = [this.scalar()];
      while (this.acceptP(",")) list.push(this.scalar());
      this.expectP(")");
      return { type: "in", not, arg: left, list };
    }
    if (this.isKw("LIKE")) {
      this.next();
      const pattern = this.binary(0);
      let escape = null;
      if (this.acceptKw("ESCAPE")) {
        const t = this.next();
        if (t.t !== "str") this.fail(t);
        escape = t.v;
      }
      return { type: "like", not, arg: left, pattern, escape };
    }
    if (this.isKw("BETWEEN")) {
      this.next();
      const low = this.binary(0);
      this.expectKw("AND");
      const high = this.binary(0);
      return { type: "between", not, arg: left, low, high };
    }
    if (not) this.fail();
    return left;
  }

  // Binary operators, loosest first: || | ^ & (= !=) (< > <= >=) (<< >> >>>) (+ -) (* / %)
  binary(level) {
    const LEVELS = [["||"], ["|"], ["^"], ["&"], ["=", "!=", "<>"], ["<", ">", "<=", ">="],
      ["<<", ">>", ">>>"], ["+", "-"], ["*", "/", "%"]];
    if (level >= LEVELS.length) return this.unary();
    let e = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.t === "p" && LEVELS[level].includes(t.v)) {
        this.next();
        const op = t.v === "<>" ? "!=" : t.v;
        e = { type: "binary", op, left: e, right: this.binary(level + 1) };
      } else return e;
    }
  }

  unary() {
    this.nesting += 1;
    try {
      if (this.nesting > MAX_NESTING) {
        const t = this.peek();
        throw new QuerySyntaxError(null, `The query nests expressions more than ${MAX_NESTING} levels deep, more than this server takes.`, t.start, t.end);
      }
      return this.unaryInner();
    } finally {
      this.nesting -= 1;
    }
  }

  unaryInner() {
    const t = this.peek();
    if (t.t === "p" && (t.v === "-" || t.v === "+" || t.v === "~")) {
      this.next();
      const arg = this.unary();
      if (t.v === "-" && arg.type === "lit" && typeof arg.value === "number" && !arg.negated) {
        return { type: "lit", value: -arg.value, raw: "-" + arg.raw, negated: true };
      }
      return { type: "unary", op: t.v, arg };
    }
    if (t.t === "kw" && t.v === "NOT") {
      this.next();
      return { type: "unary", op: "NOT", arg: this.unary() };
    }
    return this.postfix(this.primary());
  }

  postfix(e) {
    for (;;) {
      if (this.isP(".")) {
        this.next();
        const name = this.propertyName();
        e = { type: "prop", obj: e, name, bracket: false };
      } else if (this.isP("[")) {
        this.next();
        const idx = this.scalar();
        this.expectP("]");
        if (idx.type === "lit" && (typeof idx.value === "string" || typeof idx.value === "number")) {
          e = { type: "prop", obj: e, name: idx.value, bracket: true, raw: idx.raw };
        } else {
          e = { type: "index", obj: e, index: idx };
        }
      } else return e;
    }
  }

  primary() {
    const t = this.peek();
    if (t.t === "num") { this.next(); return { type: "lit", value: t.v, raw: t.raw }; }
    if (t.t === "str") { this.next(); return { type: "lit", value: t.v }; }
    if (t.t === "param") { this.next(); return { type: "param", name: t.v }; }
    if (t.t === "kw") {
      switch (t.v) {
        case "true": this.next(); return { type: "lit", value: true };
        case "false": this.next(); return { type: "lit", value: false };
        case "null": this.next(); return { type: "lit", value: null };
        case "undefined": this.next(); return { type: "lit", value: undefined };
        case "EXISTS": case "ARRAY": {
          if (!this.isP("(", 1)) break;
          this.next();
          this.next();
          const q = this.query();
          this.expectP(")");
          return { type: "subquery", mode: t.v === "EXISTS" ? "exists" : "array", query: q };
        }
        case "udf": {
          this.next();
          this.expectP(".");
          const name = this.identifier();
          return this.call(name, true, t.start, this.toks[this.pos - 1].end);
        }
        case "LEFT": case "RIGHT":
          if (this.isP("(", 1)) { this.next(); return this.call(t.word, false, t.start, t.end); }
          break;
        default: break;
      }
      if (IDENTIFIER_KEYWORDS.has(t.v)) {
        this.next();
        if (this.isP("(")) return this.call(t.word, false, t.start, t.end);
        return { type: "ident", name: t.word };
      }
      return this.fail();
    }
    if (t.t === "id") {
      this.next();
      if (this.isP("(")) return this.call(t.v, false, t.start, t.end);
      return { type: "ident", name: t.v };
    }
    if (t.t === "p") {
      if (t.v === "(") {
        this.next();
        if (this.isKw("SELECT")) {
          const q = this.query();
          this.expectP(")");
          return { type: "subquery", mode: "scalar", query: q };
        }
        const e = this.scalar();
        this.expectP(")");
        return e.type === "lit" ? e : { type: "paren", expr: e };
      }
      if (t.v === "[") {
        this.next();
        const items = [];
        if (!this.isP("]")) {
          do items.push(this.scalar()); while (this.acceptP(","));
        }
        this.expectP("]");
        return { type: "array", items };
      }
      if (t.v === "{") {
        this.next();
        const props = [];
        if (!this.isP("}")) {
          do {
            const k = this.next();
            let key;
            if (k.t === "str") key = k.v;
            else if (k.t === "id") key = k.v; // the service also takes a bare name
            else this.fail(k);
            this.expectP(":");
            props.push({ key, value: this.scalar() });
          } while (this.acceptP(","));
        }
        this.expectP("}");
        return { type: "object", props };
      }
    }
    return this.fail();
  }

  // start/nameEnd: the span of the function name (where the service reports errors
  // about the name); end: the closing parenthesis.
  call(name, udf, start, nameEnd) {
    this.expectP("(");
    const args = [];
    if (!this.isP(")")) {
      do args.push(this.scalar()); while (this.acceptP(","));
    }
    const close = this.expectP(")");
    const upper = name.toUpperCase();
    return { type: "call", name, upper, udf, args, aggregate: !udf && AGGREGATES.has(upper), start, nameEnd, end: close.end };
  }
}

/** Parse query text into an AST; throws QuerySyntaxError. */
function parse(text) {
  if (typeof text !== "string") throw new QuerySyntaxError("SC1001", "The query text must be a string.", 0, 0);
  const p = new Parser(text);
  if (p.peek().t === "eof") {
    throw new QuerySyntaxError("SC1001", "Syntax error, incorrect syntax near the end of the query.", 0, 0);
  }
  const q = p.program();
  if (treeDepth(q) > MAX_TREE_DEPTH) {
    throw new QuerySyntaxError(null, `The query's expressions are more than ${MAX_TREE_DEPTH} levels deep, more than this server takes.`, 0, text.length);
  }
  return q;
}

/** Depth of a parsed tree, measured without recursion. */
function treeDepth(root) {
  let max = 0;
  const stack = [[root, 1]];
  while (stack.length > 0) {
    const [node, d] = stack.pop();
    if (d > max) max = d;
    for (const v of Object.values(node)) {
      if (v !== null && typeof v === "object") stack.push([v, d + 1]);
    }
  }
  return max;
}

/** Walk every expression node of a query (not into subqueries unless asked). */
function walkExpr(node, fn, intoSubqueries = false) {
  if (!node || typeof node !== "object") return;
  fn(node);
  switch (node.type) {
    case "prop": walkExpr(node.obj, fn, intoSubqueries); break;
    case "index": walkExpr(node.obj, fn, intoSubqueries); walkExpr(node.index, fn, intoSubqueries); break;
    case "unary": walkExpr(node.arg, fn, intoSubqueries); break;
    case "paren": walkExpr(node.expr, fn, intoSubqueries); break;
    case "binary": case "coalesce": walkExpr(node.left, fn, intoSubqueries); walkExpr(node.right, fn, intoSubqueries); break;
    case "cond": walkExpr(node.test, fn, intoSubqueries); walkExpr(node.cons, fn, intoSubqueries); walkExpr(node.alt, fn, intoSubqueries); break;
    case "in": walkExpr(node.arg, fn, intoSubqueries); node.list.forEach(e => walkExpr(e, fn, intoSubqueries)); break;
    case "like": walkExpr(node.arg, fn, intoSubqueries); walkExpr(node.pattern, fn, intoSubqueries); break;
    case "between": walkExpr(node.arg, fn, intoSubqueries); walkExpr(node.low, fn, intoSubqueries); walkExpr(node.high, fn, intoSubqueries); break;
    case "call": node.args.forEach(e => walkExpr(e, fn, intoSubqueries)); break;
    case "array": node.items.forEach(e => walkExpr(e, fn, intoSubqueries)); break;
    case "object": node.props.forEach(p => walkExpr(p.value, fn, intoSubqueries)); break;
    case "subquery": if (intoSubqueries) walkQuery(node.query, fn); break;
    default: break;
  }
}

function walkQuery(q, fn) {
  if (q.select.kind === "value") walkExpr(q.select.expr, fn, true);
  if (q.select.kind === "list") q.select.items.forEach(i => walkExpr(i.expr, fn, true));
  (q.from || []).forEach(s => { if (s.coll.type === "subquery") walkQuery(s.coll.query, fn); });
  walkExpr(q.where, fn, true);
  (q.groupBy || []).forEach(e => walkExpr(e, fn, true));
  (q.orderBy || []).forEach(o => walkExpr(o.expr, fn, true));
}

/** True when the expression holds an aggregate call at this query level. */
function hasAggregate(expr) {
  let found = false;
  walkExpr(expr, n => { if (n.type === "call" && n.aggregate) found = true; }, false);
  return found;
}

module.exports = { parse, tokenize, QuerySyntaxError, walkExpr, walkQuery, hasAggregate, AGGREGATES };

// Prints a query AST (query-parse.js) back to text in the form the service writes
// rewritten queries of a query plan: every binary operation parenthesised, string
// literals in double quotes, "FROM Root AS r", one clause per line.
"use strict";

function printLiteral(v, raw) {
  if (v === undefined) return "undefined";
  if (typeof v === "number") return raw !== undefined && Number(raw) === v && !/^0[xX]/.test(raw) ? String(raw) : JSON.stringify(v);
  return JSON.stringify(v);
}

function printExpr(e) {
  switch (e.type) {
    case "lit": return printLiteral(e.value, e.raw);
    case "param": return e.name;
    case "ident": return e.name;
    case "raw": return e.text;
    case "paren": return printExpr(e.expr);
    case "prop":
      if (!e.bracket) return `${printExpr(e.obj)}.${e.name}`;
      return `${printExpr(e.obj)}[${printLiteral(e.name, e.raw)}]`;
    case "index": return `${printExpr(e.obj)}[${printExpr(e.index)}]`;
    case "unary": return e.op === "NOT" ? `(NOT ${printExpr(e.arg)})` : `${e.op}${printExpr(e.arg)}`;
    case "binary": return `(${printExpr(e.left)} ${e.op} ${printExpr(e.right)})`;
    case "coalesce": return `(${printExpr(e.left)} ?? ${printExpr(e.right)})`;
    case "cond": return `(${printExpr(e.test)} ? ${printExpr(e.cons)} : ${printExpr(e.alt)})`;
    case "in": return `(${printExpr(e.arg)} ${e.not ? "NOT IN" : "IN"} (${e.list.map(printExpr).join(", ")}))`;
    case "between": return `(${printExpr(e.arg)} ${e.not ? "NOT BETWEEN" : "BETWEEN"} ${printExpr(e.low)} AND ${printExpr(e.high)})`;
    case "like": return `(${printExpr(e.arg)} ${e.not ? "NOT LIKE" : "LIKE"} ${printExpr(e.pattern)}${e.escape !== null && e.escape !== undefined ? ` ESCAPE ${JSON.stringify(e.escape)}` : ""})`;
    case "call": return `${e.udf ? "udf." : ""}${e.name}(${e.args.map(printExpr).join(", ")})`;
    case "array": return `[${e.items.map(printExpr).join(", ")}]`;
    case "object": return `{${e.props.map(p => `${JSON.stringify(p.key)}: ${printExpr(p.value)}`).join(", ")}}`;
    case "subquery": {
      const inner = printQuery(e.query, " ");
      if (e.mode === "exists") return `EXISTS(${inner})`;
      if (e.mode === "array") return `ARRAY(${inner})`;
      return `(${inner})`;
    }
    default: throw new Error(`cannot print expression ${e.type}`);
  }
}

function printPath(coll) {
  let s = coll.root;
  for (const k of coll.path) s += typeof k === "number" ? `[${k}]` : (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
  return s;
}

function printSource(src, sep) {
  const coll = src.coll.type === "subquery" ? `(${printQuery(src.coll.query, sep)})` : printPath(src.coll);
  if (src.kind === "iter") return `${src.alias} IN ${coll}`;
  if (src.coll.type === "path" && src.coll.path.length === 0 && src.coll.root === src.alias) return coll;
  return `${coll} AS ${src.alias}`;
}

function printCount(spec) {
  return spec.type === "param" ? spec.name : String(spec.value);
}

/** Text of a query; clauses separated by sep ("\n" at the top level, as the service does). */
function printQuery(q, sep = "\n") {
  let s = "SELECT ";
  if (q.distinct) s += "DISTINCT ";
  if (q.top) s += `TOP ${printCount(q.top)} `;
  if (q.select.kind === "star") s += "*";
  else if (q.select.kind === "value") s += `VALUE ${printExpr(q.select.expr)}`;
  else s += q.select.items.map(it => (it.alias ? `${printExpr(it.expr)} AS ${it.alias}` : printExpr(it.expr))).join(", ");
  if (q.from) {
    s += `${sep}FROM ${printSource(q.from[0], sep)}`;
    for (const j of q.from.slice(1)) s += `${sep}JOIN ${printSource(j, sep)}`;
  }
  if (q.where) s += `${sep}WHERE ${printExpr(q.where)}`;
  if (q.groupBy) s += `${sep}GROUP BY ${q.groupBy.map(printExpr).join(", ")}`;
  if (q.orderBy) s += `${sep}ORDER BY ${q.orderBy.map(o => printExpr(o.expr) + (o.dir ? ` ${o.dir}` : "")).join(", ")}`;
  if (q.offset) s += `${sep}OFFSET ${printCount(q.offset)} LIMIT ${printCount(q.limit)}`;
  return s;
}

module.exports = { printExpr, printQuery };

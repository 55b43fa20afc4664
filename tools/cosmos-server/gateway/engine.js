// The query engine the gateway calls: gateway/query.js (analyze, plan, execute,
// GatewayError) when present, else the interim stand-in. `source` says which.
"use strict";

function load() {
  try {
    return { m: require("./query"), source: "gateway/query.js" };
  } catch (e) {
    if (e && e.code === "MODULE_NOT_FOUND" && /[/\\]query['"]?/.test(String(e.message).split("\n")[0])) {
      return { m: require("./interim-engine"), source: "interim" };
    }
    throw e;
  }
}

const { m, source } = load();

module.exports = {
  analyze: (...a) => m.analyze(...a),
  plan: (...a) => m.plan(...a),
  execute: (...a) => m.execute(...a),
  GatewayError: m.GatewayError,
  source
};

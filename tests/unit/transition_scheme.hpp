#pragma once
// The transition scheme of the fake-gateway unit tests: current routes key
// "u1" to dbs/d/colls/a1 (others to a10), next routes it to b1 (others to
// b10), both lookup resolvers on /k; `mode` is the transition's readMode.
#include <docshard/resolvers/partition_scheme.hpp>

#include <string>

namespace docshard::test {

inline resolvers::PartitionScheme TransitionLookupScheme(char const* mode) {
  auto lookup = [](char const* target) {
    return std::string(R"({"type": "lookup", "partitionKey": "/k", "keyType": "string", "entries": [
        {"key": "u1", "collection": "dbs/d/colls/)") +
           target + R"("}], "default": "dbs/d/colls/)" + target + R"(0"})";
  };
  return resolvers::PartitionScheme::Load(std::string(R"({"docshard": 1, "resolver": {"type": "transition",
      "readMode": ")") + mode + R"(", "current": )" +
                                          lookup("a1") + R"(, "next": )" + lookup("b1") + "}}");
}

}  // namespace docshard::test

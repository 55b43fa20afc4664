#pragma once
// The tests' own model of Cosmos DB's ORDER BY order, independent of the
// library's: undefined (a missing value) < null < false < true < numbers (by
// value) < strings < arrays < objects. Strings compare by bytes, which is
// Cosmos DB's UTF-16 order for the ASCII strings the tests use; two arrays or
// two objects compare equal (the tests never order by them).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

namespace docshard::test {

// Compact JSON text of a value.
inline std::string JsonText(rapidjson::Value const& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return std::string(b.GetString(), b.GetSize());
}

// The type's place in the order; nullptr is undefined.
inline int CosmosTypeRank(rapidjson::Value const* v) {
  if (!v) return 0;
  if (v->IsNull()) return 1;
  if (v->IsFalse()) return 2;
  if (v->IsTrue()) return 3;
  if (v->IsNumber()) return 4;
  if (v->IsString()) return 5;
  if (v->IsArray()) return 6;
  return 7;
}

// <0, 0 or >0 as a sorts before, with or after b.
inline int CosmosCompare(rapidjson::Value const* a, rapidjson::Value const* b) {
  int const ta = CosmosTypeRank(a), tb = CosmosTypeRank(b);
  if (ta != tb) return ta < tb ? -1 : 1;
  if (ta == 4) return a->GetDouble() < b->GetDouble() ? -1 : a->GetDouble() > b->GetDouble() ? 1 : 0;
  if (ta == 5) {
    std::string const x = a->GetString(), y = b->GetString();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return 0;
}

}  // namespace docshard::test

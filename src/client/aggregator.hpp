#pragma once
// Internal: combines the partial aggregates each (collection, range) stream
// returns into the aggregate over everything, as the gateway's rewritten
// queries deliver them:
//   COUNT -> a number;  SUM -> a number, or undefined when a value was not a
//   number;  MIN/MAX -> {"min"|"max": v, "count": n} (or a bare value from
//   older gateways; no "min" with n > 0 = undefined: an array or object);  AVG -> {"sum": s, "count": n}, so the
//   average is total sum / total count, never an average of averages.
// A partial arrives wrapped as {"item": ...} / {"item2": ...}; Unwrap takes
// the value out (a null pointer = undefined).
#include "query_info.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>

namespace docshard::client::detail {

// {"item2": x} -> x, else {"item": x} -> x, {} -> undefined (nullptr).
rapidjson::Value const* UnwrapPartial(rapidjson::Value const& wrapped);

class Aggregator {
public:
  // No kind: a grouping value (the first one seen is kept).
  explicit Aggregator(std::optional<AggregateKind> kind) : m_kind(kind) {}

  // `partial` is the unwrapped partial of one stream (nullptr = undefined).
  void Add(rapidjson::Value const* partial);
  // Whether the result is defined (false: the alias is left out, or a VALUE
  // aggregate yields no row).
  bool HasResult() const;
  // Writes the result into `out` (integral numbers as integers).
  void Result(rapidjson::Value& out, rapidjson::MemoryPoolAllocator<>& allocator) const;

private:
  void AddNumber(double& sum, std::int64_t& exact, bool& exactOk, rapidjson::Value const& v);

  std::optional<AggregateKind> m_kind;
  bool m_seen = false;       // something was added
  bool m_undefined = false;  // SUM met an undefined partial: the result is undefined
  double m_sum = 0;
  std::int64_t m_exactSum = 0;  // integral partials summed exactly while they fit
  bool m_exact = true;
  double m_count = 0;
  std::int64_t m_exactCount = 0;
  bool m_countExact = true;
  bool m_any = false;           // MIN/MAX/AVG/SUM received at least one value
  rapidjson::Document m_value;  // MIN/MAX best so far, or the grouping value
};

// Sets `out` to `d` as the service prints it: integers without a fraction.
void SetNumber(rapidjson::Value& out, double d);

}  // namespace docshard::client::detail

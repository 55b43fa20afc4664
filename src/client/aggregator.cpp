#include "aggregator.hpp"

#include "cosmos_value.hpp"

#include <cmath>
#include <limits>

namespace docshard::client::detail {

namespace {
rapidjson::Value const* Find(rapidjson::Value const& object, char const* name) {
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

bool IsExactInteger(rapidjson::Value const& v) { return v.IsInt64() || (v.IsUint64() && v.GetUint64() <= INT64_MAX); }
}  // namespace

rapidjson::Value const* UnwrapPartial(rapidjson::Value const& wrapped) {
  if (!wrapped.IsObject()) return &wrapped;  // a bare partial
  if (auto const* v = Find(wrapped, "item2")) return v;
  return Find(wrapped, "item");
}

void SetNumber(rapidjson::Value& out, double d) {
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9007199254740992.0)
    out.SetInt64(static_cast<std::int64_t>(d));
  else
    out.SetDouble(d);
}

void Aggregator::AddNumber(double& sum, std::int64_t& exact, bool& exactOk, rapidjson::Value const& v) {
  sum += v.GetDouble();
  if (exactOk && IsExactInteger(v)) {
    std::int64_t x = v.GetInt64();
    if (__builtin_add_overflow(exact, x, &exact)) exactOk = false;
  } else {
    exactOk = false;
  }
}

void Aggregator::Add(rapidjson::Value const* partial) {
  m_seen = true;
  if (!m_kind) {
    // A grouping value: every partial of one group carries the same one.
    if (!m_any && partial) {
      m_value.CopyFrom(*partial, m_value.GetAllocator());
      m_any = true;
    }
    return;
  }
  switch (*m_kind) {
  case AggregateKind::Count:
    if (partial && partial->IsNumber()) AddNumber(m_count, m_exactCount, m_countExact, *partial);
    return;
  case AggregateKind::Sum:
    // SUM of a partition holding a non-number is undefined, and so is the total.
    if (!partial || !partial->IsNumber()) {
      m_undefined = true;
      return;
    }
    AddNumber(m_sum, m_exactSum, m_exact, *partial);
    m_any = true;
    return;
  case AggregateKind::Average: {
    if (!partial || !partial->IsObject()) {
      m_undefined = true;
      return;
    }
    auto const* sum = Find(*partial, "sum");
    auto const* count = Find(*partial, "count");
    double n = count && count->IsNumber() ? count->GetDouble() : 0;
    if (!sum || !sum->IsNumber()) {
      // No sum over values that exist: one was not a number.
      if (n > 0) m_undefined = true;
      return;
    }
    AddNumber(m_sum, m_exactSum, m_exact, *sum);
    m_count += n;
    m_any = m_any || n > 0;
    return;
  }
  case AggregateKind::Min:
  case AggregateKind::Max: {
    rapidjson::Value const* value = partial;
    if (partial && partial->IsObject()) {
      // {"min": v, "count": n}. No "min" with n = 0: nothing to compare in
      // that range; with n > 0: an array or object was among the values, so
      // MIN/MAX is undefined there and therefore overall.
      value = Find(*partial, *m_kind == AggregateKind::Min ? "min" : "max");
      auto const* count = Find(*partial, "count");
      if (!value && count && count->IsNumber() && count->GetDouble() > 0) m_undefined = true;
    }
    if (!value) return;
    if (!m_any) {
      m_value.CopyFrom(*value, m_value.GetAllocator());
      m_any = true;
      return;
    }
    int c = CompareCosmosValues(value, &m_value);
    if (*m_kind == AggregateKind::Min ? c < 0 : c > 0) m_value.CopyFrom(*value, m_value.GetAllocator());
    return;
  }
  }
}

bool Aggregator::HasResult() const {
  if (!m_kind) return m_any;
  switch (*m_kind) {
  case AggregateKind::Count: return m_seen;
  case AggregateKind::Sum: return m_any && !m_undefined;
  case AggregateKind::Average: return m_any && !m_undefined && m_count > 0;
  case AggregateKind::Min:
  case AggregateKind::Max: return m_any && !m_undefined;
  }
  return false;
}

void Aggregator::Result(rapidjson::Value& out, rapidjson::MemoryPoolAllocator<>& allocator) const {
  if (!m_kind) {
    out.CopyFrom(m_value, allocator);
    return;
  }
  switch (*m_kind) {
  case AggregateKind::Count:
    if (m_countExact)
      out.SetInt64(m_exactCount);
    else
      SetNumber(out, m_count);
    return;
  case AggregateKind::Sum:
    if (m_exact)
      out.SetInt64(m_exactSum);
    else
      SetNumber(out, m_sum);
    return;
  case AggregateKind::Average: SetNumber(out, (m_exact ? static_cast<double>(m_exactSum) : m_sum) / m_count); return;
  case AggregateKind::Min:
  case AggregateKind::Max: out.CopyFrom(m_value, allocator); return;
  }
}

}  // namespace docshard::client::detail

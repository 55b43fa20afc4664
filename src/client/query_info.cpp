#include "query_info.hpp"

#include "core/json_depth.hpp"

#include "docshard/client/query_plan.hpp"

#include <rapidjson/document.h>

#include <cmath>

namespace docshard::client {

std::string_view SupportedQueryFeatures() noexcept {
  // Exactly what the merge implements. Not declared: NonStreamingOrderBy
  // (vector search), ListAndSetAggregate (MakeList/MakeSet), HybridSearch,
  // WeightedRankFusion, HybridSearchSkipOrderByRewrite: a gateway asked for
  // one of those answers with its own error instead of a plan.
  return "Aggregate,CompositeAggregate,CountIf,Distinct,GroupBy,MultipleAggregates,MultipleOrderBy,"
         "NonValueAggregate,OffsetAndLimit,OrderBy,Top";
}

namespace detail {

namespace {
[[noreturn]] void Malformed(std::string const& what) {
  throw Error(ErrorCode::Internal, "the gateway's query plan is not understood: " + what);
}

using Value = rapidjson::Value;

Value const* Member(Value const& object, char const* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::optional<std::uint64_t> Count(Value const& queryInfo, char const* name) {
  auto const* v = Member(queryInfo, name);
  if (!v) return std::nullopt;
  if (v->IsUint64()) return v->GetUint64();
  // The gateway writes integers, but a JSON writer may give 10.0.
  if (v->IsDouble() && v->GetDouble() >= 0 && v->GetDouble() < 1.8e19 && std::trunc(v->GetDouble()) == v->GetDouble())
    return static_cast<std::uint64_t>(v->GetDouble());
  Malformed(std::string("queryInfo.") + name + " is not a non-negative integer");
}

std::vector<std::string> Strings(Value const& queryInfo, char const* name) {
  std::vector<std::string> out;
  auto const* v = Member(queryInfo, name);
  if (!v) return out;
  if (!v->IsArray()) Malformed(std::string("queryInfo.") + name + " is not an array");
  for (auto const& e : v->GetArray()) {
    if (!e.IsString()) Malformed(std::string("queryInfo.") + name + " holds a non-string");
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

AggregateKind Aggregate(std::string const& name, std::string const& sql) {
  if (name == "Count" || name == "CountIf") return AggregateKind::Count;
  if (name == "Sum") return AggregateKind::Sum;
  if (name == "Min") return AggregateKind::Min;
  if (name == "Max") return AggregateKind::Max;
  if (name == "Average") return AggregateKind::Average;
  throw UnsupportedQueryError("the " + name + " aggregate", sql);
}

bool NonEmptyObjectOrTrue(Value const* v) {
  if (!v) return false;
  if (v->IsBool()) return v->GetBool();
  if (v->IsObject()) return v->MemberCount() > 0;
  if (v->IsArray()) return !v->Empty();
  return true;
}
}  // namespace

char const* AggregateName(AggregateKind kind) noexcept {
  switch (kind) {
  case AggregateKind::Count: return "COUNT";
  case AggregateKind::Sum: return "SUM";
  case AggregateKind::Min: return "MIN";
  case AggregateKind::Max: return "MAX";
  case AggregateKind::Average: return "AVG";
  }
  return "?";
}

PartitionedQueryPlan ParseQueryPlan(std::string_view json, std::string const& sql) {
  if (docshard::detail::JsonDepthExceeds(json, 64)) Malformed("nested too deeply");
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) Malformed("not a JSON object");

  PartitionedQueryPlan plan;
  if (auto const* v = Member(doc, "partitionedQueryExecutionInfoVersion")) {
    if (!v->IsInt()) Malformed("partitionedQueryExecutionInfoVersion is not an integer");
    plan.Version = v->GetInt();
  }
  if (NonEmptyObjectOrTrue(Member(doc, "hybridSearchQueryInfo")))
    throw UnsupportedQueryError("hybrid search (full-text score ranking)", sql);

  auto const* qi = Member(doc, "queryInfo");
  if (!qi || !qi->IsObject()) Malformed("no queryInfo");
  auto& info = plan.Info;

  if (auto const* v = Member(*qi, "distinctType")) {
    if (!v->IsString()) Malformed("queryInfo.distinctType is not a string");
    std::string d = v->GetString();
    if (d == "None")
      info.Distinct = DistinctType::None;
    else if (d == "Ordered")
      info.Distinct = DistinctType::Ordered;
    else if (d == "Unordered")
      info.Distinct = DistinctType::Unordered;
    else
      throw UnsupportedQueryError("DISTINCT of type " + d, sql);
  }
  info.Top = Count(*qi, "top");
  info.Offset = Count(*qi, "offset");
  info.Limit = Count(*qi, "limit");
  if (info.Offset.has_value() != info.Limit.has_value())
    Malformed("queryInfo has offset without limit or limit without offset");

  for (auto const& o : Strings(*qi, "orderBy")) {
    if (o == "Ascending")
      info.OrderBy.push_back(SortOrder::Ascending);
    else if (o == "Descending")
      info.OrderBy.push_back(SortOrder::Descending);
    else
      Malformed("queryInfo.orderBy holds \"" + o + "\"");
  }
  info.OrderByExpressions = Strings(*qi, "orderByExpressions");
  if (!info.OrderByExpressions.empty() && info.OrderByExpressions.size() != info.OrderBy.size())
    Malformed("queryInfo.orderBy and orderByExpressions differ in length");
  info.GroupByExpressions = Strings(*qi, "groupByExpressions");

  for (auto const& a : Strings(*qi, "aggregates")) info.Aggregates.push_back(Aggregate(a, sql));

  auto aliases = Strings(*qi, "groupByAliases");
  auto const* aliasTypes = Member(*qi, "groupByAliasToAggregateType");
  if (aliasTypes && !aliasTypes->IsObject()) Malformed("queryInfo.groupByAliasToAggregateType is not an object");
  auto typeOf = [&](std::string const& alias) -> std::optional<AggregateKind> {
    if (!aliasTypes) return std::nullopt;
    auto it =
        aliasTypes->FindMember(rapidjson::StringRef(alias.c_str(), static_cast<rapidjson::SizeType>(alias.size())));
    if (it == aliasTypes->MemberEnd() || it->value.IsNull()) return std::nullopt;
    if (!it->value.IsString()) Malformed("queryInfo.groupByAliasToAggregateType[\"" + alias + "\"] is not a string");
    return Aggregate(it->value.GetString(), sql);
  };
  if (!aliases.empty()) {
    for (auto const& alias : aliases) info.Aliases.emplace_back(alias, typeOf(alias));
  } else if (aliasTypes) {
    // Older plans list the aliases only as the keys of this object.
    for (auto const& m : aliasTypes->GetObject()) {
      std::string alias(m.name.GetString(), m.name.GetStringLength());
      info.Aliases.emplace_back(alias, typeOf(alias));
    }
  }
  if (aliasTypes)
    for (auto const& m : aliasTypes->GetObject()) {
      bool listed = false;
      for (auto const& a : info.Aliases) listed = listed || a.first == m.name.GetString();
      if (!listed)
        Malformed(std::string("queryInfo.groupByAliasToAggregateType names \"") + m.name.GetString() +
                  "\", which groupByAliases does not list");
    }

  if (auto const* v = Member(*qi, "rewrittenQuery")) {
    if (!v->IsString()) Malformed("queryInfo.rewrittenQuery is not a string");
    info.RewrittenQuery.assign(v->GetString(), v->GetStringLength());
  }
  if (auto const* v = Member(*qi, "hasSelectValue")) {
    if (!v->IsBool()) Malformed("queryInfo.hasSelectValue is not a boolean");
    info.HasSelectValue = v->GetBool();
  }
  if (NonEmptyObjectOrTrue(Member(*qi, "hasNonStreamingOrderBy")))
    throw UnsupportedQueryError("a non-streaming ORDER BY (vector search)", sql);
  if (NonEmptyObjectOrTrue(Member(*qi, "dCountInfo"))) throw UnsupportedQueryError("DCOUNT", sql);

  // Combinations the merge does not implement.
  if (info.HasOrderBy() && info.HasGrouping())
    throw UnsupportedQueryError("ORDER BY together with GROUP BY or aggregates", sql);
  if (info.HasSelectValue && info.Aggregates.size() > 1)
    throw UnsupportedQueryError("SELECT VALUE with several aggregates", sql);
  if (!info.Aggregates.empty() && !info.HasSelectValue && info.Aliases.empty())
    throw UnsupportedQueryError("an aggregate inside a larger expression", sql);
  if (info.HasSelectValue && !info.Aliases.empty() && info.Aggregates.empty() && info.GroupByExpressions.empty())
    Malformed("queryInfo has aliases for a SELECT VALUE query without GROUP BY");

  auto const* ranges = Member(doc, "queryRanges");
  if (!ranges || !ranges->IsArray()) Malformed("no queryRanges array");
  for (auto const& r : ranges->GetArray()) {
    if (!r.IsObject()) Malformed("queryRanges holds a non-object");
    auto const* min = Member(r, "min");
    auto const* max = Member(r, "max");
    if (!min || !max || !min->IsString() || !max->IsString())
      Malformed("queryRanges entries need string min and max (effective partition keys)");
    QueryRange q;
    q.Min.assign(min->GetString(), min->GetStringLength());
    q.Max.assign(max->GetString(), max->GetStringLength());
    if (auto const* b = Member(r, "isMinInclusive")) q.MinInclusive = b->IsBool() && b->GetBool();
    if (auto const* b = Member(r, "isMaxInclusive")) q.MaxInclusive = b->IsBool() && b->GetBool();
    plan.Ranges.push_back(std::move(q));
  }
  return plan;
}

std::string StreamQueryText(QueryInfo const& info, std::string const& originalSql) {
  if (info.RewrittenQuery.empty()) return originalSql;
  static constexpr std::string_view Placeholder = "{documentdb-formattableorderbyquery-filter}";
  std::string text = info.RewrittenQuery;
  for (auto pos = text.find(Placeholder); pos != std::string::npos; pos = text.find(Placeholder, pos + 4))
    text.replace(pos, Placeholder.size(), "true");
  return text;
}

}  // namespace detail
}  // namespace docshard::client

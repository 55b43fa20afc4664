#include "query_plan_cache.hpp"

#include "cosmos_value.hpp"

#include "docshard/cosmos/cosmos_requests.hpp"
#include "docshard/errors.hpp"
#include "docshard/query_plan.hpp"

#include <algorithm>

namespace docshard::detail {

namespace {
CosmosRequest PlanRequest(CollectionRef const& collection, SqlQuery const& query) {
  auto r = CosmosRequests::QueryDocuments(collection.Link(), query);
  r.Operation = "GetQueryPlan";
  r.Headers.Set("x-ms-cosmos-is-query-plan-request", "True");
  r.Headers.Set("x-ms-cosmos-supported-query-features", std::string(SupportedQueryFeatures()));
  r.Headers.Set("x-ms-cosmos-query-version", "1.4");
  return r;
}

CosmosRequest RangesRequest(CollectionRef const& collection) {
  CosmosRequest r;
  r.Operation = "ReadPartitionKeyRanges";
  r.Method = "GET";
  r.ResourceType = "pkranges";
  r.ResourceLink = collection.Link();
  r.Path = collection.Link() + "/pkranges";
  r.Idempotent = true;
  return r;
}

// "... the calling client does not support: NonStreamingOrderBy" -> the features.
std::optional<std::string> UnsupportedFeatures(std::string const& body) {
  for (char const* marker : {"does not support", "not supported by the client"}) {
    auto pos = body.find(marker);
    if (pos == std::string::npos) continue;
    auto colon = body.find(':', pos);
    if (colon == std::string::npos) return std::string(marker);
    auto end = body.find_first_of("\"\\\r\n", colon + 1);
    std::string features = body.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
    while (!features.empty() && (features.front() == ' ')) features.erase(features.begin());
    while (!features.empty() && (features.back() == ' ' || features.back() == '.')) features.pop_back();
    return features.empty() ? std::string(marker) : features;
  }
  return std::nullopt;
}
} // namespace

std::string QueryPlanCache::Key(CosmosClient const& client, CollectionRef const& collection) {
  return client.Endpoint() + "|" + collection.Link();
}

std::string QueryPlanCache::PartitionKeyDefinition(CosmosClient& client, CollectionRef const& collection) {
  auto const key = Key(client, collection);
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_definitions.find(key); it != m_definitions.end()) return it->second;
  }
  auto body = client.ReadCollection(collection.Link()).Json();
  std::string definition;
  if (body.IsObject())
    if (auto pk = body.FindMember("partitionKey"); pk != body.MemberEnd()) definition = CanonicalJson(pk->value);
  std::lock_guard lock(m_mutex);
  if (m_definitions.size() >= MaxEntries) m_definitions.clear();
  m_definitions[key] = definition;
  return definition;
}

std::optional<PartitionedQueryPlan> QueryPlanCache::Plan(CosmosClient& client, CollectionRef const& collection,
                                                         SqlQuery const& query) {
  auto const key = PartitionKeyDefinition(client, collection) + "\n" + query.ToJson();
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_plans.find(key); it != m_plans.end()) return it->second;
  }
  std::optional<PartitionedQueryPlan> plan;
  try {
    auto response = client.Send(PlanRequest(collection, query));
    auto const& body = response.Body();
    // A server that does not know plan requests runs the query instead.
    bool const isPlan = body.find("\"queryInfo\"") != std::string::npos ||
                        body.find("\"partitionedQueryExecutionInfoVersion\"") != std::string::npos;
    if (isPlan) plan = ParseQueryPlan(body, query.Text());
    else if (body.find("\"Documents\"") == std::string::npos)
      throw Error(ErrorCode::Internal, "the query plan request for " + collection.Text() +
                                           " was answered with neither a plan nor documents");
  } catch (BadRequestError const& e) {
    if (auto features = UnsupportedFeatures(e.Body())) throw UnsupportedQueryError(*features, query.Text());
    throw;
  }
  std::lock_guard lock(m_mutex);
  if (m_plans.size() >= MaxEntries) m_plans.clear();
  m_plans[key] = plan;
  return plan;
}

std::vector<RangeSpan> QueryPlanCache::Ranges(CosmosClient& client, CollectionRef const& collection,
                                              std::string const& min, std::string const& max, bool maxInclusive,
                                              bool refresh) {
  auto const key = Key(client, collection);
  std::vector<RangeSpan> all;
  bool cached = false;
  if (!refresh) {
    std::lock_guard lock(m_mutex);
    if (auto it = m_ranges.find(key); it != m_ranges.end()) {
      all = it->second;
      cached = true;
    }
  }
  if (!cached) {
    std::string continuation;
    do {
      auto request = RangesRequest(collection);
      if (!continuation.empty()) request.Headers.Set("x-ms-continuation", continuation);
      CosmosResponse response;
      try {
        response = client.Send(std::move(request));
      } catch (NotFoundError const&) {
        // A server without partition key ranges: the collection is one stream.
        if (!all.empty()) throw;
        all.push_back({"", "", "FF"});
        break;
      }
      auto body = response.Json();
      auto ranges = body.IsObject() ? body.FindMember("PartitionKeyRanges") : body.MemberEnd();
      if (!body.IsObject() || ranges == body.MemberEnd() || !ranges->value.IsArray())
        throw Error(ErrorCode::Internal, "the partition key ranges of " + collection.Text() + " are not understood");
      for (auto const& r : ranges->value.GetArray()) {
        auto field = [&](char const* name) -> std::string {
          auto it = r.FindMember(name);
          // Some emulators write the id as a number.
          if (it != r.MemberEnd() && it->value.IsUint64()) return std::to_string(it->value.GetUint64());
          if (it == r.MemberEnd() || !it->value.IsString())
            throw Error(ErrorCode::Internal, "a partition key range of " + collection.Text() + " has no " + name);
          return std::string(it->value.GetString(), it->value.GetStringLength());
        };
        all.push_back({field("id"), field("minInclusive"), field("maxExclusive")});
      }
      continuation = response.Continuation();
    } while (!continuation.empty());
    std::sort(all.begin(), all.end(), [](RangeSpan const& a, RangeSpan const& b) { return a.Min < b.Min; });
    std::lock_guard lock(m_mutex);
    if (m_ranges.size() >= MaxEntries) m_ranges.clear();
    m_ranges[key] = all;
  }
  // "FF" (or "") as a maximum is the end of the EPK space.
  auto beyond = [](std::string const& a, std::string const& bound) { return !bound.empty() && bound != "FF" && a > bound; };
  std::vector<RangeSpan> out;
  for (auto const& r : all) {
    bool const endsBefore = r.Max != "FF" && !r.Max.empty() && r.Max <= min;
    bool const startsAfter = maxInclusive ? beyond(r.Min, max) : (!max.empty() && max != "FF" && r.Min >= max);
    if (!endsBefore && !startsAfter) out.push_back(r);
  }
  return out;
}

} // namespace docshard::detail

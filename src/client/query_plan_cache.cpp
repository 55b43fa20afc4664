#include "query_plan_cache.hpp"

#include "cosmos_value.hpp"

#include "cosmos/cosmos_requests.hpp"
#include "cosmos/response_json.hpp"
#include "docshard/client/query_plan.hpp"
#include "docshard/core/errors.hpp"

#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <future>
#include <set>

#include "docshard/cosmos/partition_key_range.hpp"

namespace docshard::client::detail {

namespace {
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
}  // namespace

std::string QueryPlanCache::Key(cosmos::CosmosClient const& client, CollectionRef const& collection) {
  return client.Endpoint() + "|" + collection.Link();
}

std::string QueryPlanCache::PartitionKeyDefinition(cosmos::CosmosClient& client, CollectionRef const& collection) {
  auto const key = Key(client, collection);
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_definitions.find(key); it != m_definitions.end()) return it->second;
  }
  return Remember(key, client.ReadCollection(collection.Link()));
}

std::string QueryPlanCache::Remember(std::string const& key, cosmos::CosmosResponse const& collection) {
  auto body = cosmos::detail::ParseBody(collection);
  std::string definition;
  if (body.IsObject())
    if (auto pk = body.FindMember("partitionKey"); pk != body.MemberEnd()) definition = CanonicalJson(pk->value);
  std::lock_guard lock(m_mutex);
  if (m_definitions.size() >= MaxEntries) m_definitions.clear();
  m_definitions[key] = definition;
  return definition;
}

std::vector<std::exception_ptr>
QueryPlanCache::Prepare(std::vector<std::pair<cosmos::CosmosClient*, CollectionRef>> const& collections,
                        std::vector<bool> const& withRanges) {
  std::vector<std::exception_ptr> errors(collections.size());
  std::vector<std::size_t> unseen;
  {
    std::lock_guard lock(m_mutex);
    std::set<std::string> keys;
    for (std::size_t i = 0; i < collections.size(); ++i) {
      auto key = Key(*collections[i].first, collections[i].second);
      if (!m_definitions.count(key) && keys.insert(key).second) unseen.push_back(i);
    }
  }
  if (unseen.size() < 2) return errors;  // nothing to overlap
  std::vector<std::future<cosmos::CosmosResponse>> definitions;
  std::vector<std::future<std::vector<cosmos::PartitionKeyRange>>> ranges;
  for (auto i : unseen) {
    auto& client = *collections[i].first;
    auto const& link = collections[i].second.Link();
    definitions.push_back(client.AsyncSend(cosmos::CosmosRequests::ReadCollection(link), boost::asio::use_future));
    if (i < withRanges.size() && withRanges[i])
      ranges.push_back(client.PartitionKeyRanges().AsyncGetOverlappingRanges(
          link, cosmos::MinimumEpk, cosmos::MaximumEpk, false, boost::asio::use_future));
  }
  for (std::size_t j = 0; j < unseen.size(); ++j) {
    try {
      Remember(Key(*collections[unseen[j]].first, collections[unseen[j]].second), definitions[j].get());
    } catch (...) {
      errors[unseen[j]] = std::current_exception();
    }
  }
  for (auto& r : ranges) {
    try {
      r.get();  // the range cache keeps what it read
    } catch (...) {
      // Ranges() asks again and reports (or falls back to the whole collection).
    }
  }
  return errors;
}

std::optional<PartitionedQueryPlan> QueryPlanCache::Plan(cosmos::CosmosClient& client, CollectionRef const& collection,
                                                         cosmos::SqlQuery const& query) {
  auto const key = PartitionKeyDefinition(client, collection) + "\n" + query.ToJson();
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_plans.find(key); it != m_plans.end()) return it->second;
  }
  std::optional<PartitionedQueryPlan> plan;
  try {
    auto response = client.GetQueryPlan(collection.Link(), query, SupportedQueryFeatures());
    auto const& body = response.Body();
    // A server that does not know plan requests runs the query instead.
    bool const isPlan = body.find("\"queryInfo\"") != std::string::npos ||
                        body.find("\"partitionedQueryExecutionInfoVersion\"") != std::string::npos;
    if (isPlan)
      plan = ParseQueryPlan(body, query.Text());
    else if (body.find("\"Documents\"") == std::string::npos)
      throw Error(ErrorCode::Internal, "the query plan request for " + collection.Text() +
                                           " was answered with neither a plan nor documents");
  } catch (cosmos::BadRequestError const& e) {
    if (auto features = UnsupportedFeatures(e.Body())) throw UnsupportedQueryError(*features, query.Text());
    throw;
  }
  std::lock_guard lock(m_mutex);
  if (m_plans.size() >= MaxEntries) m_plans.clear();
  m_plans[key] = plan;
  return plan;
}

namespace {
std::vector<RangeSpan> Spans(std::vector<cosmos::PartitionKeyRange> const& ranges) {
  std::vector<RangeSpan> out;
  out.reserve(ranges.size());
  for (auto const& r : ranges) out.push_back({r.Id, r.MinInclusive, r.MaxExclusive});
  return out;
}
}  // namespace

std::vector<RangeSpan> QueryPlanCache::Ranges(cosmos::CosmosClient& client, CollectionRef const& collection,
                                              std::string const& min, std::string const& max) {
  try {
    return Spans(client.PartitionKeyRanges().GetOverlappingRanges(collection.Link(), min, max));
  } catch (cosmos::NotFoundError const&) {
    throw;  // the collection does not exist
  } catch (cosmos::RequestFailedError const&) {
    throw;
  } catch (Error const& e) {
    // A server whose pkranges are no complete cover (or none): the whole
    // collection is one stream, read without a range id.
    if (e.Code() != ErrorCode::Internal) throw;
    return {RangeSpan{"", std::string(cosmos::MinimumEpk), std::string(cosmos::MaximumEpk)}};
  }
}

std::vector<RangeSpan> QueryPlanCache::RangesReplacing(cosmos::CosmosClient& client, CollectionRef const& collection,
                                                       std::string const& goneId, std::string const& min,
                                                       std::string const& max) {
  return Spans(client.PartitionKeyRanges().GetRangesReplacing(collection.Link(), goneId, min, max));
}

}  // namespace docshard::client::detail

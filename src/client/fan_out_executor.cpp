#include "fan_out_executor.hpp"

#include "core/json_string.hpp"
#include "cosmos_value.hpp"
#include "exclusion_filter.hpp"
#include "fan_out_token.hpp"
#include "keyword_plan.hpp"
#include "provisional.hpp"
#include "query_plan_cache.hpp"

#include "cosmos/cosmos_requests.hpp"
#include "docshard/client/query_plan.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <cctype>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace docshard::client::detail {

namespace {

// Pages of the fan-out's streams through each collection's CosmosClient.
class CosmosPageSource final : public IPageSource {
public:
  CosmosPageSource(FanOutRequest const& request, cosmos::SqlQuery streamQuery, FanOutOptions const& options,
                   KeywordPlan const* fallback)
      : m_request(request), m_query(std::move(streamQuery)), m_options(options) {
    if (fallback) {
      m_orderByPath = fallback->OrderByPath;
      if (!fallback->SumQuery.empty()) {
        if (!fallback->Info.Aliases.empty()) m_averageAlias = fallback->Info.Aliases.front().first;
        m_sum.emplace(fallback->SumQuery);
        m_count.emplace(fallback->CountQuery);
        for (auto const& [name, value] : m_query.Parameters()) {
          m_sum->WithJsonParameter(name, value);
          m_count->WithJsonParameter(name, value);
        }
      }
    }
  }

  std::future<StreamPage> Fetch(StreamTarget const& target, std::string const& continuation,
                                int maxItemCount) override {
    if (m_sum) return AverageWithoutPlan(target);
    return FetchPage(target, continuation, maxItemCount);
  }

  // A collection-specific text (a stale collection's, with its exclusions).
  void SetQueryFor(std::size_t target, cosmos::SqlQuery query) {
    m_perTarget.insert_or_assign(target, std::move(query));
  }

  // A collection-specific SUM and COUNT pair for AVG without query plans
  // (next's, without its provisional copies).
  void SetAverageFor(std::size_t target, cosmos::SqlQuery sum, cosmos::SqlQuery count) {
    m_perTargetAverage.insert_or_assign(target, std::make_pair(std::move(sum), std::move(count)));
  }

  // The SUM text AVG without query plans sends, if this is such a query.
  std::optional<std::string> AverageSumText() const { return m_sum ? std::optional(m_sum->Text()) : std::nullopt; }
  std::optional<std::string> AverageCountText() const {
    return m_count ? std::optional(m_count->Text()) : std::nullopt;
  }

private:
  std::future<StreamPage> FetchPage(StreamTarget const& target, std::string const& continuation, int maxItemCount) {
    auto const& t = m_request.Targets.at(target.Collection);
    cosmos::QueryOptions o;
    o.MaxItemCount = maxItemCount;
    o.Timeout = m_options.Timeout;
    o.Consistency = m_options.Consistency;
    if (!target.PartitionKeyJson.empty()) o.PartitionKey = cosmos::PartitionKeyValue::FromJson(target.PartitionKeyJson);
    if (!target.RangeId.empty()) {
      o.PartitionKeyRangeId = target.RangeId;
      // Only part of the range (after ranges merged): say which part.
      if (target.Min != target.RangeMin || target.Max != target.RangeMax) {
        o.StartEpk = target.Min;
        o.EndEpk = target.Max;
      }
    }
    auto own = m_perTarget.find(target.Collection);
    auto request = cosmos::CosmosRequests::QueryDocuments(
        t.Collection.Link(), own == m_perTarget.end() ? m_query : own->second, continuation, o);
    auto promise = std::make_shared<std::promise<StreamPage>>();
    auto future = promise->get_future();
    t.Client->AsyncSendForPage(std::move(request), [promise, path = m_orderByPath](std::exception_ptr const& error,
                                                                                   cosmos::QueryPage const& page) {
      if (error) {
        promise->set_exception(error);
        return;
      }
      try {
        promise->set_value(ToStreamPage(page, path));
      } catch (...) {
        promise->set_exception(std::current_exception());
      }
    });
    return future;
  }

public:
  std::vector<RangeSpan> RangesAfterSplit(std::size_t collection, std::string const& goneId, std::string const& min,
                                          std::string const& max) override {
    auto const& t = m_request.Targets.at(collection);
    return QueryPlanCache::RangesReplacing(*t.Client, t.Collection, goneId, min, max);
  }

private:
  // A server without query plans: AVG's partial {"sum", "count"} of one
  // collection from a SUM and a COUNT query (whole collections, one row each).
  std::future<StreamPage> AverageWithoutPlan(StreamTarget const& target) {
    auto const& t = m_request.Targets.at(target.Collection);
    cosmos::QueryOptions o;
    o.Timeout = m_options.Timeout;
    o.Consistency = m_options.Consistency;
    if (!target.PartitionKeyJson.empty()) o.PartitionKey = cosmos::PartitionKeyValue::FromJson(target.PartitionKeyJson);
    auto own = m_perTargetAverage.find(target.Collection);
    auto const& sumQuery = own == m_perTargetAverage.end() ? *m_sum : own->second.first;
    auto const& countQuery = own == m_perTargetAverage.end() ? *m_count : own->second.second;
    auto sum = t.Client->AsyncQueryDocumentsPage(t.Collection.Link(), sumQuery, "", o, boost::asio::use_future);
    auto count = t.Client->AsyncQueryDocumentsPage(t.Collection.Link(), countQuery, "", o, boost::asio::use_future);
    return std::async(std::launch::deferred, [sum = std::move(sum), count = std::move(count),
                                              alias = m_averageAlias]() mutable {
      auto s = sum.get();
      auto c = count.get();
      auto body = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
      auto& alloc = body->GetAllocator();
      rapidjson::Value partial(rapidjson::kObjectType);
      auto const& sums = JsonInterop::Value(s.Documents());
      auto const& counts = JsonInterop::Value(c.Documents());
      if (sums.Size() == 1 && sums[0].IsNumber()) partial.AddMember("sum", rapidjson::Value(sums[0], alloc), alloc);
      partial.AddMember("count", counts.Size() == 1 ? rapidjson::Value(counts[0], alloc) : rapidjson::Value(0), alloc);
      rapidjson::Value item(rapidjson::kObjectType);
      item.AddMember("item", partial, alloc);
      if (alias.empty()) {
        // SELECT VALUE AVG(x): [{"item": {"sum", "count"}}], as the gateway's rewrite gives.
        rapidjson::Value row(rapidjson::kArrayType);
        row.PushBack(item, alloc);
        body->PushBack(row, alloc);
      } else {
        // SELECT AVG(x) AS a: {"payload": {"a": {"item": {"sum", "count"}}}}.
        rapidjson::Value payload(rapidjson::kObjectType);
        payload.AddMember(rapidjson::Value(alias.c_str(), alloc), item, alloc);
        rapidjson::Value row(rapidjson::kObjectType);
        row.AddMember("payload", payload, alloc);
        body->PushBack(row, alloc);
      }
      StreamPage page;
      page.RequestCharge = s.RequestCharge() + c.RequestCharge();
      page.Requests = {s.Response().Diagnostics(), c.Response().Diagnostics()};
      page.Items = body.get();
      page.Body = std::move(body);
      return page;
    });
  }

  static StreamPage ToStreamPage(cosmos::QueryPage const& page, std::vector<std::string> const& orderByPath) {
    StreamPage out;
    out.Continuation = page.Continuation();
    out.RequestCharge = page.RequestCharge();
    out.Requests.push_back(page.Response().Diagnostics());
    if (orderByPath.empty()) {
      // The page's own parse, no copy: a JsonValue copy shares it.
      out.Body = std::make_shared<JsonValue>(page.Parsed());
      out.Items = &JsonInterop::Value(page.Documents());
      return out;
    }
    // A server without query plans returns whole documents: the sort key is
    // read from each, as the gateway's rewritten query would have returned it.
    auto body = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
    auto& alloc = body->GetAllocator();
    for (auto const& doc : JsonInterop::Value(page.Documents()).GetArray()) {
      rapidjson::Value const* v = &doc;
      for (auto const& p : orderByPath) {
        if (!v || !v->IsObject()) {
          v = nullptr;
          break;
        }
        auto it = v->FindMember(rapidjson::StringRef(p.c_str(), static_cast<rapidjson::SizeType>(p.size())));
        v = it == v->MemberEnd() ? nullptr : &it->value;
      }
      rapidjson::Value item(rapidjson::kObjectType);
      if (v) item.AddMember("item", rapidjson::Value(*v, alloc), alloc);
      rapidjson::Value items(rapidjson::kArrayType);
      items.PushBack(item, alloc);
      rapidjson::Value row(rapidjson::kObjectType);
      row.AddMember("orderByItems", items, alloc);
      row.AddMember("payload", rapidjson::Value(doc, alloc), alloc);
      body->PushBack(row, alloc);
    }
    out.Items = body.get();
    out.Body = std::move(body);
    return out;
  }

  FanOutRequest const& m_request;
  cosmos::SqlQuery m_query;
  FanOutOptions const& m_options;
  std::vector<std::string> m_orderByPath;
  std::optional<cosmos::SqlQuery> m_sum, m_count;
  std::string m_averageAlias;  // "" for SELECT VALUE AVG
  std::map<std::size_t, cosmos::SqlQuery> m_perTarget;
  std::map<std::size_t, std::pair<cosmos::SqlQuery, cosmos::SqlQuery>> m_perTargetAverage;
};

std::uint64_t Binding(FanOutRequest const& request, cosmos::SqlQuery const& query) {
  std::string identity = query.ToJson() + "\n" + request.Resolver;
  for (auto const& t : request.Targets) {
    identity += '\n' + t.Collection.Text();
    for (auto const& k : t.PartitionKeys) identity += ' ' + k;
  }
  return Fnv1a64(identity);
}

// The property names of a partition key path such as /a/b (~1 = '/', ~0 = '~').
std::vector<std::string> Segments(std::string const& path) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    std::string seg = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    for (std::size_t p; (p = seg.find("~1")) != std::string::npos;) seg.replace(p, 2, "/");
    for (std::size_t p; (p = seg.find("~0")) != std::string::npos;) seg.replace(p, 2, "~");
    out.push_back(std::move(seg));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

std::string PathExpression(std::string const& alias, std::vector<std::string> const& segments) {
  std::string e = alias;
  for (auto const& s : segments) {
    e += '[';
    docshard::detail::AppendJsonString(e, s);
    e += ']';
  }
  return e;
}

// A scheme in transition: finds the documents of the stale collections that
// next also holds, and gives each such collection a query text that leaves
// them out.
void ExcludeNewerCopies(FanOutRequest const& request, cosmos::SqlQuery const& query, std::string const& streamText,
                        bool withoutPlan, CosmosPageSource& source) {
  static std::string const Parameter = "@docshardNewerCopies";
  for (auto const& [name, value] : query.Parameters())
    if (name == Parameter) throw InvalidArgumentError("the parameter name " + Parameter + " is docshard's own");
  auto const& next = *request.Transition->Next;
  auto const& keyPath = *next.KeyPath();
  auto const serverPath = Segments(keyPath.ServerPath());
  // The top-level properties the key is made of, so that a row rebuilds it.
  std::set<std::string> roots;
  for (auto const& p : keyPath.Paths()) roots.insert(Segments(p).front());
  if (keyPath.IsSynthetic()) roots.insert(serverPath.front());
  std::string projection = "SELECT VALUE {\"id\": c.id";
  for (auto const& r : roots) {
    projection += ", ";
    docshard::detail::AppendJsonString(projection, r);
    projection += ": " + PathExpression("c", {r});
  }
  projection += "} FROM c";

  auto const nextCollections = next.Collections();
  for (std::size_t i = 0; i < request.Targets.size(); ++i) {
    auto const& t = request.Targets[i];
    if (std::find(nextCollections.begin(), nextCollections.end(), t.Collection) != nextCollections.end()) continue;
    // Every document of the stale collection, by the next collection its key goes to.
    auto rows = t.Client->QueryDocuments(t.Collection.Link(), cosmos::SqlQuery(projection));
    std::map<std::string, std::pair<CollectionRef, std::vector<std::pair<std::string, std::string>>>> byNext;
    for (auto const& row : JsonInterop::Value(rows.Documents.View()).GetArray()) {
      if (!row.IsObject() || !row.HasMember("id") || !row["id"].IsString()) continue;
      std::optional<PartitionKey> key;
      try {
        key = keyPath.TryExtract(row);
      } catch (Error const&) {
        continue;  // not a key any resolver routes: no copy can be in next
      }
      if (!key) continue;
      CollectionRef const& target = next.ResolveForCreate(*key);
      rapidjson::Value const* serverKey = &row;
      for (auto const& seg : serverPath) {
        auto it = serverKey->IsObject() ? serverKey->FindMember(seg.c_str()) : serverKey->MemberEnd();
        serverKey = it == serverKey->MemberEnd() ? nullptr : &it->value;
        if (!serverKey) break;
      }
      if (!serverKey) continue;
      auto& group = byNext[target.Text()];
      group.first = target;
      group.second.emplace_back(row["id"].GetString(), CanonicalJson(*serverKey));
    }
    // Which of them next holds (same id and partition key).
    std::string excluded = "[";
    std::size_t count = 0;
    for (auto const& [name, group] : byNext) {
      auto& client = request.Transition->ClientFor(group.first);
      auto const& ids = group.second;
      for (std::size_t b = 0; b < ids.size(); b += 1000) {
        std::string list = "[";
        for (std::size_t j = b; j < std::min(ids.size(), b + 1000); ++j) {
          if (list.size() > 1) list += ',';
          docshard::detail::AppendJsonString(list, ids[j].first);
        }
        list += ']';
        // A provisional copy in next is no newer copy: the source's stays in.
        cosmos::SqlQuery probe("SELECT VALUE [c.id, " + PathExpression("c", serverPath) +
                               "] FROM c WHERE ARRAY_CONTAINS(@ids, c.id) AND " + NotProvisionalCondition("c"));
        probe.WithJsonParameter("@ids", list);
        std::set<std::string> present;
        auto const result = client.QueryDocuments(group.first.Link(), probe);
        for (auto const& found : JsonInterop::Value(result.Documents.View()).GetArray())
          if (found.IsArray() && found.Size() == 2 && found[0].IsString())
            present.insert(std::string(found[0].GetString()) + '\n' + CanonicalJson(found[1]));
        for (std::size_t j = b; j < std::min(ids.size(), b + 1000); ++j) {
          if (!present.count(ids[j].first + '\n' + ids[j].second)) continue;
          if (++count > MaxExcludedCopies)
            throw MigrationInProgressError("more than " + std::to_string(MaxExcludedCopies) + " documents of " +
                                           t.Collection.Text() +
                                           " are also in the next scheme; retry the query when the migrator has "
                                           "caught up");
          if (excluded.size() > 1) excluded += ',';
          excluded += '[';
          docshard::detail::AppendJsonString(excluded, ids[j].first);
          excluded += ',' + ids[j].second + ']';
        }
      }
    }
    excluded += ']';
    if (count == 0) continue;
    if (withoutPlan && streamText.find("AVG") != std::string::npos)
      throw UnsupportedQueryError("AVG through a scheme in transition (this server answers no query plans)",
                                  query.Text());
    cosmos::SqlQuery own(ExcludeIdentities(streamText, Parameter, serverPath));
    for (auto const& [name, value] : query.Parameters()) own.WithJsonParameter(name, value);
    own.WithJsonParameter(Parameter, excluded);
    source.SetQueryFor(i, std::move(own));
  }
}

// A scheme in transition: next's collections hold provisional copies of
// documents being moved (their source still holds them) or of deleted ones
// (killed movers'); neither is a document to show, so their streams (and,
// for AVG without query plans, their SUM and COUNT queries) leave them out.
// A shape the condition cannot be added to (FROM x IN c.path) is refused
// with UnsupportedQueryError naming it: sent as it is, it would count them.
// A query without FROM reads no documents and is sent as it is.
void HideProvisionalCopies(FanOutRequest const& request, cosmos::SqlQuery const& query, std::string const& streamText,
                           CosmosPageSource& source) {
  auto const nextCollections = request.ProvisionalIn->Collections();
  auto const withParameters = [&](std::string text) {
    cosmos::SqlQuery own(std::move(text));
    for (auto const& [name, value] : query.Parameters()) own.WithJsonParameter(name, value);
    return own;
  };
  std::optional<std::string> text, sumText, countText;
  for (std::size_t i = 0; i < request.Targets.size(); ++i) {
    auto const& t = request.Targets[i];
    if (std::find(nextCollections.begin(), nextCollections.end(), t.Collection) == nextCollections.end()) continue;
    if (!text) {
      try {
        text = AddCondition(streamText, NotProvisionalCondition);
        if (auto sum = source.AverageSumText()) {
          sumText = AddCondition(*sum, NotProvisionalCondition);
          countText = AddCondition(*source.AverageCountText(), NotProvisionalCondition);
        }
      } catch (UnsupportedQueryError const& e) {
        if (e.Construct().rfind("a query without a FROM clause", 0) == 0) return;
        throw;
      }
    }
    source.SetQueryFor(i, withParameters(*text));
    if (sumText) source.SetAverageFor(i, withParameters(*sumText), withParameters(*countText));
  }
}

// Values the query mentions that could be a partition key: its scalar
// parameters, then its string, number and boolean literals (JSON texts).
std::vector<std::string> KeyCandidates(cosmos::SqlQuery const& query) {
  std::vector<std::string> out;
  auto add = [&](std::string json) {
    if (std::find(out.begin(), out.end(), json) == out.end()) out.push_back(std::move(json));
  };
  for (auto const& [name, value] : query.Parameters())
    if (!value.empty() && value.front() != '[' && value.front() != '{') add(value);
  auto const& sql = query.Text();
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@' || c == '$' || c == '.';
  };
  for (std::size_t i = 0; i < sql.size();) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      // A SQL string literal as JSON: its escapes are JSON's, a ' stays as is.
      std::string json = "\"";
      for (++i; i < sql.size() && sql[i] != c; ++i) {
        if (sql[i] == '\\' && i + 1 < sql.size()) {
          if (sql[i + 1] == '\'')
            json += '\'';
          else
            json += sql.substr(i, 2);
          ++i;
          continue;
        }
        if (sql[i] == '"')
          json += "\\\"";
        else
          json += sql[i];
      }
      ++i;
      add(json + "\"");
      continue;
    }
    if ((std::isdigit(static_cast<unsigned char>(c)) ||
         (c == '-' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) &&
        (i == 0 || !word(sql[i - 1]))) {
      std::size_t b = i++;
      while (i < sql.size() &&
             (std::isdigit(static_cast<unsigned char>(sql[i])) || sql[i] == '.' || sql[i] == 'e' || sql[i] == 'E' ||
              ((sql[i] == '-' || sql[i] == '+') && (sql[i - 1] == 'e' || sql[i - 1] == 'E'))))
        ++i;
      add(sql.substr(b, i - b));
      continue;
    }
    if (word(c)) {
      std::size_t b = i;
      while (i < sql.size() && word(sql[i])) ++i;
      std::string w = sql.substr(b, i - b);
      for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (w == "true" || w == "false") add(w);
      continue;
    }
    ++i;
  }
  return out;
}

// The keys a query pins by equality, when every point of its plan's query
// ranges is the EPK of one of its candidates; nothing otherwise.
std::optional<std::vector<std::string>> PinnedKeys(FanOutRequest const& request, cosmos::SqlQuery const& query,
                                                   std::vector<std::optional<PartitionedQueryPlan>> const& plans) {
  if (!request.Pinning || request.Targets.empty()) return std::nullopt;
  std::set<std::string> points;
  for (auto const& p : plans) {
    if (!p || p->Ranges.empty()) return std::nullopt;
    std::set<std::string> mine;
    for (auto const& r : p->Ranges) {
      if (!r.IsPoint()) return std::nullopt;
      mine.insert(r.Min);
    }
    if (!points.empty() && mine != points) return std::nullopt;  // collections planned differently
    points = std::move(mine);
  }
  auto candidates = KeyCandidates(query);
  if (candidates.size() > 16) return std::nullopt;
  auto const& first = request.Targets.front();
  std::string probeText = "SELECT * FROM c WHERE " + PathExpression("c", request.Pinning->ServerPath) + " = @k";
  std::vector<std::string> keys;
  for (auto const& candidate : candidates) {
    auto probe = cosmos::SqlQuery(probeText).WithJsonParameter("@k", candidate);
    auto plan = request.Plans->Plan(*first.Client, first.Collection, probe);
    if (!plan || plan->Ranges.size() != 1 || !plan->Ranges[0].IsPoint()) continue;
    if (points.erase(plan->Ranges[0].Min)) keys.push_back(candidate);
  }
  if (!points.empty()) return std::nullopt;  // a point no candidate explains
  return keys;
}

// docshard.client.fan_out.streams: the streams a fresh query opens, on each
// collection's client meter (a resumed query reopens none).
void RecordStreamMetrics(FanOutRequest const& request, MergeSpec const& spec, FanOutOptions const& options) {
  if (!options.Continuation.empty()) return;
  for (std::size_t i = 0; i < request.Targets.size(); ++i) {
    auto const& meter = request.Targets[i].Client->Metrics();
    if (!meter.Enabled()) continue;
    auto const n = std::count_if(spec.Streams.begin(), spec.Streams.end(),
                                 [&](StreamTarget const& s) { return s.Collection == i; });
    if (n == 0) continue;
    auto const& name = request.Targets[i].Collection;
    meter.Record(Instruments::FanOutStreams, static_cast<double>(n),
                 {{"db.system.name", "azure.cosmosdb"},
                  {"db.operation.name", "query_items"},
                  {"db.namespace", name.Database()},
                  {"db.collection.name", name.Collection()}});
  }
}

}  // namespace

FanOutResult ExecuteFanOut(FanOutRequest const& requested, cosmos::SqlQuery const& query,
                           FanOutOptions const& options) {
  FanOutRequest request = requested;
  MergeSpec spec;
  spec.Sql = query.Text();
  spec.Epoch = request.Epoch;

  // The plan decides what the merge does; every collection must agree on it.
  // A collection that cannot be planned or ranged fails like a stream:
  // under ReturnPartial it is reported and the others are read.
  std::vector<bool> failed(request.Targets.size(), false);
  auto guard = [&](std::size_t i, auto&& step) {
    if (failed[i]) return;
    try {
      step();
    } catch (InvalidArgumentError const&) {
      throw;  // the query itself is wrong (or unsupported): no collection can answer it
    } catch (std::exception const& e) {
      if (options.PartialResults == PartialResultsPolicy::Fail) throw;
      failed[i] = true;
      spec.Failed.emplace_back(i, e.what());
    }
  };
  // A cold fan-out reads every collection's definition and ranges at once.
  std::vector<std::exception_ptr> prepared;
  {
    std::vector<std::pair<cosmos::CosmosClient*, CollectionRef>> collections;
    std::vector<bool> withRanges;
    for (auto const& t : request.Targets) {
      collections.emplace_back(t.Client, t.Collection);
      withRanges.push_back(t.PartitionKeys.empty());
    }
    prepared = request.Plans->Prepare(collections, withRanges);
  }
  std::vector<std::optional<PartitionedQueryPlan>> plans(request.Targets.size());
  std::size_t withPlan = 0, planned = 0;
  for (std::size_t i = 0; i < request.Targets.size(); ++i)
    guard(i, [&] {
      auto const& t = request.Targets[i];
      if (prepared[i]) std::rethrow_exception(prepared[i]);
      plans[i] = request.Plans->Plan(*t.Client, t.Collection, query);
      ++planned;
      if (plans[i]) ++withPlan;
    });
  if (planned == request.Targets.size()) {
    if (auto keys = PinnedKeys(request, query, plans)) {
      // Only the collections owning the pinned keys, each read by key.
      auto targets = request.Pinning->TargetsFor(*keys);
      std::vector<std::optional<PartitionedQueryPlan>> kept;
      for (auto const& t : targets)
        for (std::size_t i = 0; i < request.Targets.size(); ++i)
          if (request.Targets[i].Collection == t.Collection) kept.push_back(plans[i]);
      if (kept.size() == targets.size()) {
        request.Targets = std::move(targets);
        plans = std::move(kept);
        failed.assign(request.Targets.size(), false);
      }
    }
  }
  spec.Binding = Binding(request, query);
  std::optional<KeywordPlan> fallback;
  std::string streamText = query.Text();
  if (withPlan == 0) {
    fallback = AnalyzeWithoutGateway(query.Text());
    spec.Info = fallback->Info;
  } else {
    if (withPlan != planned)
      throw InvalidArgumentError("the collections of this query are on servers that answer query plans and on "
                                 "servers that do not; they cannot be merged in one query: " +
                                 query.Text());
    for (auto const& p : plans)
      if (p) spec.Info = p->Info;
    for (auto const& p : plans)
      if (p && !(p->Info == spec.Info))
        throw Error(ErrorCode::Internal,
                    "the gateways of this query's collections planned it differently: " + query.Text());
    streamText = StreamQueryText(spec.Info, query.Text());
  }

  for (auto const& t : request.Targets) spec.CollectionNames.push_back(t.Collection.Text());
  for (std::size_t i = 0; i < request.Targets.size(); ++i) {
    auto const& t = request.Targets[i];
    if (failed[i]) continue;
    if (!t.PartitionKeys.empty()) {
      for (auto const& key : t.PartitionKeys) {
        StreamTarget s;
        s.Collection = i;
        s.PartitionKeyJson = key;
        spec.Streams.push_back(std::move(s));
      }
      continue;
    }
    // The ranges the plan's query ranges touch (all of them without a plan).
    std::vector<QueryRange> wanted = plans[i] ? plans[i]->Ranges : std::vector<QueryRange>{};
    if (wanted.empty()) wanted.push_back({"", "FF", true, false});
    std::set<std::string> seen;
    std::vector<StreamTarget> streams;
    guard(i, [&] {
      for (auto const& q : wanted)
        // A point [x, x] asks for the range holding x (the cache's min == max).
        for (auto const& r : QueryPlanCache::Ranges(*t.Client, t.Collection, q.Min, q.IsPoint() ? q.Min : q.Max)) {
          if (!seen.insert(r.Id).second) continue;
          StreamTarget s;
          s.Collection = i;
          s.RangeId = r.Id;
          s.Min = s.RangeMin = r.Min;
          s.Max = s.RangeMax = r.Max;
          streams.push_back(std::move(s));
        }
    });
    if (!failed[i]) spec.Streams.insert(spec.Streams.end(), streams.begin(), streams.end());
  }
  RecordStreamMetrics(request, spec, options);

  cosmos::SqlQuery streamQuery(streamText);
  for (auto const& [name, value] : query.Parameters()) streamQuery.WithJsonParameter(name, value);
  CosmosPageSource source(request, std::move(streamQuery), options, fallback ? &*fallback : nullptr);
  if (request.Transition) ExcludeNewerCopies(request, query, streamText, fallback.has_value(), source);
  if (request.ProvisionalIn) HideProvisionalCopies(request, query, streamText, source);
  return RunMerge(spec, options, source);
}

}  // namespace docshard::client::detail

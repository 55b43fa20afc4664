#include "fan_out_executor.hpp"

#include "cosmos_value.hpp"
#include "fan_out_token.hpp"
#include "core/json_string.hpp"
#include "keyword_plan.hpp"
#include "query_plan_cache.hpp"

#include "docshard/cosmos/cosmos_requests.hpp"
#include "docshard/errors.hpp"

#include <boost/asio/use_future.hpp>

#include <future>
#include <map>
#include <set>

namespace docshard::detail {

namespace {

// Pages of the fan-out's streams through each collection's CosmosClient.
class CosmosPageSource final : public IPageSource {
public:
  CosmosPageSource(FanOutRequest const& request, SqlQuery streamQuery, FanOutOptions const& options,
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

  std::future<StreamPage> Fetch(StreamTarget const& target, std::string const& continuation, int maxItemCount) override {
    if (m_sum) return AverageWithoutPlan(target);
    auto page = FetchPage(target, continuation, maxItemCount);
    auto const& t = m_request.Targets.at(target.Collection);
    if (!t.Stale || !m_request.Transition) return page;
    // Checked on the caller's thread when it waits for the page.
    return std::async(std::launch::deferred, [this, &t, page = std::move(page)]() mutable {
      auto p = page.get();
      MarkStaleCopies(t, p);
      return p;
    });
  }

  void RowsAreOrderBy(bool orderBy) { m_orderByRows = orderBy; }

private:
  std::future<StreamPage> FetchPage(StreamTarget const& target, std::string const& continuation, int maxItemCount) {
    auto const& t = m_request.Targets.at(target.Collection);
    QueryOptions o;
    o.MaxItemCount = maxItemCount;
    o.Timeout = m_options.Timeout;
    if (!target.PartitionKeyJson.empty()) o.PartitionKey = PartitionKeyValue::FromJson(target.PartitionKeyJson);
    auto request = CosmosRequests::QueryDocuments(t.Collection.Link(), m_query, continuation, o);
    if (!target.RangeId.empty()) {
      request.Headers.Set("x-ms-documentdb-partitionkeyrangeid", target.RangeId);
      // Only part of the range (after ranges merged): say which part.
      if (target.Min != target.RangeMin || target.Max != target.RangeMax) {
        request.Headers.Set("x-ms-start-epk", target.Min);
        request.Headers.Set("x-ms-end-epk", target.Max);
      }
    }
    auto promise = std::make_shared<std::promise<StreamPage>>();
    auto future = promise->get_future();
    t.Client->AsyncSendForPage(std::move(request),
                               [promise, path = m_orderByPath](std::exception_ptr error, QueryPage page) {
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
  std::vector<RangeSpan> RangesAfterSplit(std::size_t collection, std::string const& min,
                                          std::string const& max) override {
    auto const& t = m_request.Targets.at(collection);
    return m_request.Plans->Ranges(*t.Client, t.Collection, min, max, false, true);
  }

private:
  // Marks the rows of a stale collection's page whose document (same id and
  // partition key) next also holds: one query per next collection per page.
  void MarkStaleCopies(FanOutTarget const& t, StreamPage& page) {
    auto const& next = *m_request.Transition->Next;
    auto const& path = *next.KeyPath();
    std::vector<std::string> serverPath;
    for (std::size_t start = 1; start <= path.ServerPath().size();) {
      auto slash = path.ServerPath().find('/', start);
      serverPath.push_back(path.ServerPath().substr(start, slash == std::string::npos ? std::string::npos : slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    auto serverKey = [&](rapidjson::Value const& doc) -> std::string {
      rapidjson::Value const* v = &doc;
      for (auto const& p : serverPath) {
        if (!v->IsObject()) return "undefined";
        auto it = v->FindMember(rapidjson::StringRef(p.c_str(), static_cast<rapidjson::SizeType>(p.size())));
        if (it == v->MemberEnd()) return "undefined";
        v = &it->value;
      }
      return CanonicalJson(*v);
    };
    struct Candidate {
      std::size_t Index;
      std::string Id, Key;
    };
    std::map<std::string, std::pair<CollectionRef, std::vector<Candidate>>> byNext;
    auto const& items = *page.Items;
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
      rapidjson::Value const* doc = &items[i];
      if (m_orderByRows) {
        auto payload = doc->IsObject() ? doc->FindMember("payload") : doc->MemberEnd();
        if (!doc->IsObject() || payload == doc->MemberEnd()) continue;
        doc = &payload->value;
      }
      if (!doc->IsObject()) continue;
      auto id = doc->FindMember("id");
      if (id == doc->MemberEnd() || !id->value.IsString()) continue;
      auto key = path.TryExtract(*doc);
      if (!key) continue;
      CollectionRef const& target = next.ResolveForCreate(*key);
      if (target == t.Collection) continue;  // one physical copy
      auto& group = byNext[target.Text()];
      group.first = target;
      group.second.push_back({i, std::string(id->value.GetString(), id->value.GetStringLength()), serverKey(*doc)});
    }
    if (byNext.empty()) return;
    std::string keyExpr = "c";
    for (auto const& p : serverPath) {
      keyExpr += '[';
      AppendJsonString(keyExpr, p);
      keyExpr += ']';
    }
    page.Suppressed.assign(items.Size(), false);
    for (auto const& [name, group] : byNext) {
      std::string ids = "[";
      for (auto const& c : group.second) {
        if (ids.size() > 1) ids += ',';
        AppendJsonString(ids, c.Id);
      }
      ids += ']';
      SqlQuery probe("SELECT c.id, " + keyExpr + " AS k FROM c WHERE ARRAY_CONTAINS(@ids, c.id)");
      probe.WithJsonParameter("@ids", ids);
      auto found = m_request.Transition->ClientFor(group.first).QueryDocuments(group.first.Link(), probe);
      std::set<std::string> present;
      for (auto const& row : found.Documents.GetArray()) {
        if (!row.IsObject() || !row.HasMember("id") || !row["id"].IsString()) continue;
        auto k = row.FindMember("k");
        present.insert(std::string(row["id"].GetString()) + '\n' +
                       (k == row.MemberEnd() ? std::string("undefined") : CanonicalJson(k->value)));
      }
      for (auto const& c : group.second)
        if (present.count(c.Id + '\n' + c.Key)) page.Suppressed[c.Index] = true;
    }
  }

  // A server without query plans: AVG's partial {"sum", "count"} of one
  // collection from a SUM and a COUNT query (whole collections, one row each).
  std::future<StreamPage> AverageWithoutPlan(StreamTarget const& target) {
    auto const& t = m_request.Targets.at(target.Collection);
    QueryOptions o;
    o.Timeout = m_options.Timeout;
    if (!target.PartitionKeyJson.empty()) o.PartitionKey = PartitionKeyValue::FromJson(target.PartitionKeyJson);
    auto sum = t.Client->AsyncQueryDocumentsPage(t.Collection.Link(), *m_sum, "", o, boost::asio::use_future);
    auto count = t.Client->AsyncQueryDocumentsPage(t.Collection.Link(), *m_count, "", o, boost::asio::use_future);
    return std::async(std::launch::deferred, [sum = std::move(sum), count = std::move(count), alias = m_averageAlias]() mutable {
      auto s = sum.get();
      auto c = count.get();
      auto body = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
      auto& alloc = body->GetAllocator();
      rapidjson::Value partial(rapidjson::kObjectType);
      if (s.Count() == 1 && s.Documents()[0].IsNumber()) partial.AddMember("sum", rapidjson::Value(s.Documents()[0], alloc), alloc);
      partial.AddMember("count", c.Count() == 1 ? rapidjson::Value(c.Documents()[0], alloc) : rapidjson::Value(0), alloc);
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
      page.Items = body.get();
      page.Body = std::move(body);
      return page;
    });
  }

  static StreamPage ToStreamPage(QueryPage const& page, std::vector<std::string> const& orderByPath) {
    StreamPage out;
    out.Continuation = page.Continuation();
    out.RequestCharge = page.RequestCharge();
    if (orderByPath.empty()) {
      out.Body = page.Parsed();
      out.Items = &page.Documents();
      return out;
    }
    // A server without query plans returns whole documents: the sort key is
    // read from each, as the gateway's rewritten query would have returned it.
    auto body = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
    auto& alloc = body->GetAllocator();
    for (auto const& doc : page.Documents().GetArray()) {
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
  SqlQuery m_query;
  FanOutOptions const& m_options;
  std::vector<std::string> m_orderByPath;
  std::optional<SqlQuery> m_sum, m_count;
  std::string m_averageAlias;  // "" for SELECT VALUE AVG
  bool m_orderByRows = false;
};

std::uint64_t Binding(FanOutRequest const& request, SqlQuery const& query) {
  std::string identity = query.ToJson() + "\n" + request.Resolver;
  for (auto const& t : request.Targets) {
    identity += '\n' + t.Collection.Text();
    for (auto const& k : t.PartitionKeys) identity += ' ' + k;
  }
  return Fnv1a64(identity);
}

} // namespace

FanOutResult ExecuteFanOut(FanOutRequest const& request, SqlQuery const& query, FanOutOptions const& options) {
  MergeSpec spec;
  spec.Sql = query.Text();
  spec.Epoch = request.Epoch;
  spec.Binding = Binding(request, query);

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
  std::vector<std::optional<PartitionedQueryPlan>> plans(request.Targets.size());
  std::size_t withPlan = 0, planned = 0;
  for (std::size_t i = 0; i < request.Targets.size(); ++i)
    guard(i, [&] {
      auto const& t = request.Targets[i];
      plans[i] = request.Plans->Plan(*t.Client, t.Collection, query);
      ++planned;
      if (plans[i]) ++withPlan;
    });
  std::optional<KeywordPlan> fallback;
  std::string streamText = query.Text();
  if (withPlan == 0) {
    fallback = AnalyzeWithoutGateway(query.Text());
    spec.Info = fallback->Info;
  } else {
    if (withPlan != planned)
      throw InvalidArgumentError("the collections of this query are on servers that answer query plans and on "
                                 "servers that do not; they cannot be merged in one query: " + query.Text());
    for (auto const& p : plans)
      if (p) spec.Info = p->Info;
    for (auto const& p : plans)
      if (p && !(p->Info == spec.Info))
        throw Error(ErrorCode::Internal, "the gateways of this query's collections planned it differently: " +
                                             query.Text());
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
        for (auto const& r : request.Plans->Ranges(*t.Client, t.Collection, q.Min, q.Max, q.MaxInclusive, false)) {
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

  SqlQuery streamQuery(streamText);
  for (auto const& [name, value] : query.Parameters()) streamQuery.WithJsonParameter(name, value);
  CosmosPageSource source(request, std::move(streamQuery), options, fallback ? &*fallback : nullptr);
  source.RowsAreOrderBy(spec.Info.HasOrderBy());
  return RunMerge(spec, options, source);
}

} // namespace docshard::detail

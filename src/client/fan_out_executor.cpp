#include "fan_out_executor.hpp"

#include "fan_out_token.hpp"

#include "docshard/errors.hpp"

#include <chrono>
#include <future>
#include <unordered_set>
#include <cmath>

#include <boost/asio/use_future.hpp>

namespace docshard::detail {

namespace {
using Clock = std::chrono::steady_clock;

int TypeRank(rapidjson::Value const* v) {
  if (!v) return 0;
  switch (v->GetType()) {
  case rapidjson::kNullType: return 1;
  case rapidjson::kFalseType:
  case rapidjson::kTrueType: return 2;
  case rapidjson::kNumberType: return 3;
  case rapidjson::kStringType: return 4;
  case rapidjson::kArrayType: return 5;
  case rapidjson::kObjectType: return 6;
  }
  return 7;
}

struct Cursor {
  CollectionRef Collection;
  CosmosClient* Client = nullptr;
  std::string PageToken;  // continuation that fetched the current page
  std::string NextToken;  // continuation for the page after it
  std::shared_ptr<rapidjson::Document const> Page;
  std::size_t Index = 0;
  std::size_t Count = 0;
  bool Done = false;
  bool HasPage = false;
  std::future<QueryPage> Pending;
  Clock::time_point Started;
  CollectionDiagnostics Diagnostics;
};

class Executor {
public:
  Executor(std::vector<CollectionRef> const& collections, ClientLookup const& clientFor, SqlQuery const& query,
           FanOutOptions const& options)
      : m_query(query), m_options(options), m_plan(QueryPlan::Analyze(query.Text())) {
    m_queryOptions.MaxItemCount = options.PageSize;
    m_queryOptions.Timeout = options.Timeout;
    std::string identity = query.ToJson();
    for (auto const& c : collections) {
      Cursor cursor;
      cursor.Collection = c;
      cursor.Client = &clientFor(c);
      cursor.Diagnostics.Collection = c.Text();
      m_cursors.push_back(std::move(cursor));
      identity += '\n' + c.Text();
    }
    m_hash = Fnv1a64(identity);
  }

  FanOutResult Run() {
    auto const start = Clock::now();
    if (m_plan.GetAggregate() != QueryPlan::Aggregate::None) {
      if (!m_options.Continuation.empty())
        throw InvalidArgumentError("an aggregate fan-out returns one result and takes no continuation token");
      RunAggregate();
    } else {
      RestoreToken();
      if (m_plan.HasOrderBy())
        RunOrderBy();
      else
        RunUnion();
    }
    for (auto& c : m_cursors) {
      m_result.RequestCharge += c.Diagnostics.RequestCharge;
      m_result.Diagnostics.push_back(std::move(c.Diagnostics));
    }
    m_result.Elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    return std::move(m_result);
  }

private:
  void RestoreToken() {
    if (m_options.Continuation.empty()) return;
    auto token = FanOutToken::Decode(m_options.Continuation);
    if (token.QueryHash != m_hash || token.Cursors.size() != m_cursors.size())
      throw InvalidArgumentError(
          "invalid continuation token: it belongs to another query or another set of collections");
    m_emittedBefore = token.Emitted;
    for (std::size_t i = 0; i < m_cursors.size(); ++i) {
      m_cursors[i].PageToken = token.Cursors[i].PageToken;
      m_cursors[i].Index = static_cast<std::size_t>(token.Cursors[i].Skip);
      m_cursors[i].Done = token.Cursors[i].Done;
    }
  }

  void Launch(Cursor& c, std::string const& token, SqlQuery const& query) {
    c.Started = Clock::now();
    c.PageToken = token;
    c.Pending = c.Client->AsyncQueryDocumentsPage(c.Collection.Link(), query, token, m_queryOptions,
                                                  boost::asio::use_future);
  }

  // Waits for the cursor's pending page. False when the collection failed
  // under ReturnPartial (it is then finished).
  bool Await(Cursor& c, std::size_t skip) {
    try {
      QueryPage page = c.Pending.get();
      c.Diagnostics.Latency += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.Started);
      c.Diagnostics.Pages += 1;
      c.Diagnostics.RequestCharge += page.RequestCharge();
      c.Page = page.Parsed();
      c.Count = page.Count();
      c.Index = std::min(skip, c.Count);
      c.NextToken = page.Continuation();
      c.HasPage = true;
      return true;
    } catch (std::exception const& e) {
      c.Diagnostics.Latency += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.Started);
      if (m_options.PartialResults == PartialResultsPolicy::Fail) throw;
      c.Diagnostics.Error = e.what();
      c.Done = true;
      c.HasPage = false;
      m_result.Partial = true;
      return false;
    }
  }

  // First pages of every unfinished cursor, at most MaxConcurrency in flight.
  void PrefetchFirstPages() {
    std::size_t const window = std::max<std::size_t>(1, m_options.MaxConcurrency);
    std::vector<std::pair<Cursor*, std::size_t>> inFlight;
    auto drainOne = [&] {
      auto [c, skip] = inFlight.front();
      inFlight.erase(inFlight.begin());
      Await(*c, skip);
    };
    for (auto& c : m_cursors) {
      if (c.Done) continue;
      if (inFlight.size() == window) drainOne();
      std::size_t skip = c.Index;
      Launch(c, c.PageToken, m_query);
      inFlight.emplace_back(&c, skip);
    }
    while (!inFlight.empty()) drainOne();
  }

  // Makes sure the cursor has an unconsumed item, fetching further pages
  // (the local server may return empty pages with a continuation).
  bool Fill(Cursor& c) {
    while (!c.Done) {
      if (c.HasPage && c.Index < c.Count) return true;
      if (c.HasPage && c.NextToken.empty()) {
        c.Done = true;
        break;
      }
      Launch(c, c.NextToken, m_query);
      if (!Await(c, 0)) break;
    }
    return false;
  }

  rapidjson::Value const& Head(Cursor const& c) const { return (*c.Page)["Documents"][static_cast<rapidjson::SizeType>(c.Index)]; }

  bool LimitReached() const {
    std::uint64_t total = m_emittedBefore + m_result.Items.Size();
    if (m_plan.Top() && total >= *m_plan.Top()) return true;
    return false;
  }
  bool PageFull() const { return m_options.MaxItems > 0 && m_result.Items.Size() >= m_options.MaxItems; }

  void Emit(Cursor& c) {
    if (m_options.DeduplicateById) {
      // During a migration a document can sit in its old and its new
      // collection for a moment; the first copy in resolver order wins.
      auto const& item = Head(c);
      if (item.IsObject()) {
        auto id = item.FindMember("id");
        if (id != item.MemberEnd() && id->value.IsString() &&
            !m_seenIds.emplace(id->value.GetString(), id->value.GetStringLength()).second) {
          c.Index += 1;
          return;
        }
      }
    }
    rapidjson::Value copy(Head(c), m_result.Items.GetAllocator());
    m_result.Items.PushBack(copy, m_result.Items.GetAllocator());
    c.Diagnostics.Items += 1;
    c.Index += 1;
  }

  void FinishWithToken() {
    if (LimitReached()) return;  // TOP satisfied: the query is complete
    bool anyLeft = false;
    FanOutToken token;
    token.QueryHash = m_hash;
    token.Emitted = m_emittedBefore + m_result.Items.Size();
    for (auto& c : m_cursors) {
      bool done = c.Done || (c.HasPage && c.Index >= c.Count && c.NextToken.empty());
      // A consumed page is resumed from the next one; otherwise from the same page, skipping what was sent.
      if (!done && c.HasPage && c.Index >= c.Count)
        token.Cursors.push_back({c.NextToken, 0, false});
      else
        token.Cursors.push_back({c.PageToken, c.Index, done});
      anyLeft = anyLeft || !done;
    }
    if (anyLeft) m_result.Continuation = token.Encode();
  }

  void RunUnion() {
    // All first pages in parallel: the latency of a fan-out is one round trip, not N.
    PrefetchFirstPages();
    for (auto& c : m_cursors) {
      while (Fill(c)) {
        if (LimitReached()) return;
        if (PageFull()) return FinishWithToken();
        Emit(c);
      }
    }
    if (PageFull()) FinishWithToken();
  }

  void RunOrderBy() {
    PrefetchFirstPages();
    auto const& path = m_plan.OrderByPath();
    auto key = [&](Cursor const& c) -> rapidjson::Value const* {
      rapidjson::Value const* v = &Head(c);
      for (auto const& p : path) {
        if (!v->IsObject()) return nullptr;
        auto it = v->FindMember(rapidjson::StringRef(p.c_str(), static_cast<rapidjson::SizeType>(p.size())));
        if (it == v->MemberEnd()) {
          // A projection `SELECT c.a.b` names the property "b" at the top.
          if (v == &Head(c) && path.size() > 1) {
            auto top = v->FindMember(rapidjson::StringRef(path.back().c_str()));
            return top == v->MemberEnd() ? nullptr : &top->value;
          }
          return nullptr;
        }
        v = &it->value;
      }
      return v;
    };
    while (true) {
      Cursor* best = nullptr;
      for (auto& c : m_cursors) {
        if (!Fill(c)) continue;
        if (!best) {
          best = &c;
          continue;
        }
        int cmp = CompareCosmosValues(key(c), key(*best));
        if (m_plan.Descending() ? cmp > 0 : cmp < 0) best = &c;  // ties keep collection order
      }
      if (!best || LimitReached()) return;
      if (PageFull()) return FinishWithToken();
      Emit(*best);
    }
  }

  void RunAggregate() {
    using A = QueryPlan::Aggregate;
    auto const agg = m_plan.GetAggregate();
    // AVG runs a SUM and a COUNT per collection: sum/count over all documents.
    std::vector<SqlQuery> queries;
    if (agg == A::Avg) {
      SqlQuery sum(m_plan.SumQuery()), count(m_plan.CountQuery());
      for (auto const& [name, value] : m_query.Parameters()) {
        sum.WithJsonParameter(name, value);
        count.WithJsonParameter(name, value);
      }
      queries = {sum, count};
    } else {
      queries = {m_query};
    }
    std::vector<std::vector<rapidjson::Document>> values(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (auto& c : m_cursors) {
        c.Done = false;
        c.HasPage = false;
        c.Index = 0;
      }
      std::size_t const window = std::max<std::size_t>(1, m_options.MaxConcurrency);
      std::vector<Cursor*> inFlight;
      auto collect = [&](Cursor& c) {
        if (!Await(c, 0)) return;
        while (true) {
          for (; c.Index < c.Count; ++c.Index) {
            rapidjson::Document d;
            auto const& item = Head(c);
            // SELECT AGG(..) AS x returns {"x": v}; take v.
            if (item.IsObject() && !m_plan.AggregateIsValue() && agg != A::Avg) {
              auto it = item.FindMember(rapidjson::StringRef(m_plan.AggregateAlias().c_str()));
              if (it == item.MemberEnd()) continue;
              d.CopyFrom(it->value, d.GetAllocator());
            } else {
              d.CopyFrom(item, d.GetAllocator());
            }
            values[q].push_back(std::move(d));
          }
          if (c.NextToken.empty()) break;
          Launch(c, c.NextToken, queries[q]);
          if (!Await(c, 0)) break;
        }
      };
      for (auto& c : m_cursors) {
        if (inFlight.size() == window) {
          collect(*inFlight.front());
          inFlight.erase(inFlight.begin());
        }
        Launch(c, "", queries[q]);
        inFlight.push_back(&c);
      }
      for (auto* c : inFlight) collect(*c);
    }

    auto& items = m_result.Items;
    auto& alloc = items.GetAllocator();
    rapidjson::Value result;  // null = no value (e.g. MIN over nothing)
    bool have = false;
    auto sumOf = [](std::vector<rapidjson::Document> const& vs, bool& any) {
      double s = 0;
      any = false;
      for (auto const& v : vs)
        if (v.IsNumber()) {
          s += v.GetDouble();
          any = true;
        }
      return s;
    };
    switch (agg) {
    case A::Count: {
      bool any;
      result.SetDouble(sumOf(values[0], any));
      have = true;
      break;
    }
    case A::Sum: {
      bool any;
      double s = sumOf(values[0], any);
      if (any) {
        result.SetDouble(s);
        have = true;
      }
      break;
    }
    case A::Min:
    case A::Max: {
      rapidjson::Value const* best = nullptr;
      for (auto const& v : values[0]) {
        if (!best) {
          best = &v;
          continue;
        }
        int cmp = CompareCosmosValues(&v, best);
        if (agg == A::Min ? cmp < 0 : cmp > 0) best = &v;
      }
      if (best) {
        result.CopyFrom(*best, alloc);
        have = true;
      }
      break;
    }
    case A::Avg: {
      bool anySum, anyCount;
      double s = sumOf(values[0], anySum);
      double n = sumOf(values[1], anyCount);
      if (anySum && n > 0) {
        result.SetDouble(s / n);
        have = true;
      }
      break;
    }
    case A::None: break;
    }
    if (!have) return;
    // Integral results print as integers, as the service does.
    if (result.IsDouble() && std::trunc(result.GetDouble()) == result.GetDouble() &&
        std::fabs(result.GetDouble()) < 9007199254740992.0)
      result.SetInt64(static_cast<std::int64_t>(result.GetDouble()));
    if (m_plan.AggregateIsValue()) {
      items.PushBack(result, alloc);
    } else {
      rapidjson::Value obj(rapidjson::kObjectType);
      obj.AddMember(rapidjson::Value(m_plan.AggregateAlias().c_str(), alloc), result, alloc);
      items.PushBack(obj, alloc);
    }
  }

  SqlQuery const& m_query;
  FanOutOptions const& m_options;
  QueryPlan m_plan;
  QueryOptions m_queryOptions;
  std::vector<Cursor> m_cursors;
  std::uint64_t m_hash = 0;
  std::uint64_t m_emittedBefore = 0;
  FanOutResult m_result;
  std::unordered_set<std::string> m_seenIds;
};
} // namespace

int CompareCosmosValues(rapidjson::Value const* a, rapidjson::Value const* b) {
  int ra = TypeRank(a), rb = TypeRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (!a) return 0;
  switch (a->GetType()) {
  case rapidjson::kFalseType:
  case rapidjson::kTrueType: return a->IsTrue() == b->IsTrue() ? 0 : (a->IsTrue() ? 1 : -1);
  case rapidjson::kNumberType: {
    double x = a->GetDouble(), y = b->GetDouble();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  case rapidjson::kStringType: {
    std::string_view x(a->GetString(), a->GetStringLength()), y(b->GetString(), b->GetStringLength());
    int c = x.compare(y);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  default: return 0;
  }
}

FanOutResult ExecuteFanOut(std::vector<CollectionRef> const& collections, ClientLookup const& clientFor,
                           SqlQuery const& query, FanOutOptions const& options) {
  Executor executor(collections, clientFor, query, options);
  return executor.Run();
}

} // namespace docshard::detail

#include "merge_engine.hpp"

#include "aggregator.hpp"
#include "core/json_depth.hpp"
#include "cosmos_value.hpp"
#include "fan_out_token.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace docshard::client::detail {

bool StreamTarget::Before(StreamTarget const& other) const {
  if (Collection != other.Collection) return Collection < other.Collection;
  if (Min != other.Min) return Min < other.Min;
  return PartitionKeyJson < other.PartitionKeyJson;
}

bool IsPartitionRangeGone(std::exception_ptr const& error) {
  try {
    std::rethrow_exception(error);
  } catch (cosmos::RequestFailedError const& e) {
    return e.Status() == 410 && e.SubStatus() == 1002;
  } catch (...) {
    return false;
  }
}

namespace {
using Clock = std::chrono::steady_clock;
using Value = rapidjson::Value;

// A split (or a stale range cache) that never settles must not loop.
constexpr int MaxSplitsPerStream = 16;
// Identical consecutive pages beyond this are runaway paging. Real pages
// hold distinct documents; only rows repeated by a JOIN over identical array
// elements could ever look alike, never this many pages running.
constexpr int MaxSamePages = 3;

Value const* Find(Value const& object, char const* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string Compact(Value const& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  v.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The sort key of an ORDER BY row: its orderByItems array ({"item": v} per
// expression; {} when v is undefined).
Value const* OrderByItems(Value const& row) {
  auto const* items = Find(row, "orderByItems");
  return items && items->IsArray() ? items : nullptr;
}

struct Stream {
  StreamTarget Target;
  std::string PageToken;  // fetched (or will fetch) the current page
  int PageSize = 0;       // the x-ms-max-item-count PageToken is fetched with
  std::string NextToken;
  bool HasPage = false;
  bool Done = false;
  bool Replaced = false;  // split into children; no longer read
  StreamPage Page;
  std::size_t Count = 0;
  std::size_t Index = 0;
  // Positional skip for the page PageToken fetches (a resumed stream).
  std::size_t SkipOnArrival = 0;
  // ORDER BY resume by key (a partly consumed range that was split).
  std::shared_ptr<rapidjson::Document> ResumeKey;
  std::vector<std::string> ResumeRids;
  std::optional<std::future<StreamPage>> Pending;
  int PendingSize = 0;
  std::string PendingToken;
  Clock::time_point Started;
  std::unordered_set<std::string> Seen;  // continuations fetched this call: a repeat is runaway paging
  // The last page's fingerprint and how many pages in a row had it: a server
  // whose continuation changes text but not position returns the same page.
  std::string LastPage;
  int SamePages = 0;
  int Splits = 0;
};

struct RowRef {
  Stream* From = nullptr;
  std::shared_ptr<void const> Body;  // keeps Row alive
  Value const* Row = nullptr;
  std::size_t Position = 0;
};

class Engine {
public:
  Engine(MergeSpec const& spec, FanOutOptions const& options, IPageSource& source)
      : m_spec(spec), m_info(spec.Info), m_options(options), m_source(source) {
    m_diagnostics.resize(spec.CollectionNames.size());
    for (std::size_t i = 0; i < spec.CollectionNames.size(); ++i) m_diagnostics[i].Collection = spec.CollectionNames[i];
    for (auto const& [i, error] : spec.Failed) {
      m_diagnostics.at(i).Error = error;
      m_result.Partial = true;
    }
    m_orderBy = m_info.HasOrderBy();
    m_materialized = m_info.HasGrouping() || m_info.Distinct == DistinctType::Unordered ||
                     (m_info.Distinct == DistinctType::Ordered && !m_orderBy);
  }

  FanOutResult Run() {
    auto const start = Clock::now();
    std::optional<FanOutToken> token;
    if (!m_options.Continuation.empty()) {
      token = FanOutToken::Decode(m_options.Continuation);
      if (token->Binding != m_spec.Binding || token->Materialized != m_materialized)
        throw InvalidArgumentError("invalid continuation token: it belongs to another query (text, parameters or "
                                   "collections differ)");
      if (token->Epoch != m_spec.Epoch)
        throw InvalidArgumentError("invalid continuation token: it was issued at scheme epoch " +
                                   std::to_string(token->Epoch) + " and the scheme is now at epoch " +
                                   std::to_string(m_spec.Epoch) + "; restart the query");
    }
    if (m_materialized) {
      // A resumed call recomputes from fresh streams and skips what was returned.
      for (auto const& t : m_spec.Streams) AddStream(t);
      RunMaterialized(token ? token->Consumed : 0);
    } else {
      if (token)
        Restore(*token);
      else
        for (auto const& t : m_spec.Streams) AddStream(t);
      RunStreaming();
    }
    for (auto& s : m_streams)
      if (!s->Replaced) m_diagnostics[s->Target.Collection].Ranges += 1;
    for (auto& d : m_diagnostics) {
      m_result.RequestCharge += d.RequestCharge;
      m_result.Diagnostics.push_back(std::move(d));
    }
    // The rows were built in place; the result shares them, no copy.
    m_result.Items = JsonInterop::Adopt(std::make_shared<rapidjson::Document>(std::move(m_items)));
    m_result.Elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    return std::move(m_result);
  }

private:
  // --- streams ---------------------------------------------------------------

  Stream& AddStream(StreamTarget const& target) {
    if (target.Collection >= m_diagnostics.size())
      throw InvalidArgumentError("invalid continuation token: it names a collection this query does not have");
    auto s = std::make_unique<Stream>();
    s->Target = target;
    m_streams.push_back(std::move(s));
    return *m_streams.back();
  }

  void Restore(FanOutToken const& token) {
    m_consumed = token.Consumed;
    m_lastDistinct = token.LastDistinct;
    for (auto const& st : token.Streams) {
      auto& s = AddStream(st.Target);
      s.PageToken = st.Token;
      s.PageSize = st.PageSize;
      s.SkipOnArrival = static_cast<std::size_t>(st.Skip);
      if (!st.LastKeyJson.empty()) {
        if (docshard::detail::JsonDepthExceeds(st.LastKeyJson, 64))
          throw InvalidArgumentError("invalid continuation token: bad sort key");
        auto key = std::make_shared<rapidjson::Document>();
        key->Parse(st.LastKeyJson.data(), st.LastKeyJson.size());
        if (key->HasParseError() || !key->IsArray())
          throw InvalidArgumentError("invalid continuation token: bad sort key");
        s.ResumeKey = std::move(key);
        s.ResumeRids = st.TieRids;
      }
    }
    std::stable_sort(m_streams.begin(), m_streams.end(),
                     [](auto const& a, auto const& b) { return a->Target.Before(b->Target); });
  }

  // The streams still read, in union order (rebuilt after a split).
  std::vector<Stream*> const& Live() {
    if (m_liveCount != m_streams.size()) {
      m_live.clear();
      for (auto& s : m_streams)
        if (!s->Replaced) m_live.push_back(s.get());
      std::stable_sort(m_live.begin(), m_live.end(), [](Stream* a, Stream* b) { return a->Target.Before(b->Target); });
      m_liveCount = m_streams.size();
      m_unionPosition = 0;
    }
    return m_live;
  }

  CollectionDiagnostics& Diag(Stream const& s) { return m_diagnostics[s.Target.Collection]; }

  std::string Describe(Stream const& s) const {
    std::string d = m_spec.CollectionNames[s.Target.Collection];
    if (!s.Target.RangeId.empty()) d += " range " + s.Target.RangeId;
    if (!s.Target.PartitionKeyJson.empty()) d += " key " + s.Target.PartitionKeyJson;
    return d;
  }

  void Launch(Stream& s, std::string const& token, int pageSize) {
    if (pageSize == 0) pageSize = NextPageSize();
    s.Seen.insert(token);
    s.Started = Clock::now();
    s.PendingToken = token;
    s.PendingSize = pageSize;
    s.Pending = m_source.Fetch(s.Target, token, pageSize);
  }

  // Waits for the stream's pending page. False when it has no page after
  // all: it failed under ReturnPartial (then Done) or was split (Replaced).
  bool Await(Stream& s) {
    auto future = std::move(*s.Pending);
    s.Pending.reset();
    auto& diag = Diag(s);
    try {
      StreamPage page = future.get();
      diag.Latency += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.Started);
      diag.Pages += 1;
      diag.RequestCharge += page.RequestCharge;
      for (auto& r : page.Requests)
        if (r) diag.Requests.push_back(std::move(r));
      if (!page.Items || !page.Items->IsArray())
        throw Error(ErrorCode::Internal, "a page from " + Describe(s) + " has no Documents array");
      diag.ItemsRead += page.Items->Size();
      if (!page.Continuation.empty() && s.Seen.count(page.Continuation))
        throw Error(
            ErrorCode::Internal,
            "runaway paging on " + Describe(s) +
                ": the server returned a continuation that does not advance "
                "(one it had already returned in this query); stopping instead of reading the same pages forever");
      if (!page.Continuation.empty() && !page.Items->Empty()) {
        // Same rows (system properties included, so distinct documents
        // differ) three pages running: the continuation does not move.
        auto fingerprint = std::to_string(page.Items->Size()) + '\n' + Compact((*page.Items)[0]) + '\n' +
                           Compact((*page.Items)[page.Items->Size() - 1]);
        s.SamePages = fingerprint == s.LastPage ? s.SamePages + 1 : 0;
        s.LastPage = std::move(fingerprint);
        if (s.SamePages >= MaxSamePages)
          throw Error(ErrorCode::Internal,
                      "runaway paging on " + Describe(s) + ": the server returned the same page " +
                          std::to_string(MaxSamePages + 1) +
                          " times in a row with a new continuation each time; stopping instead of reading it forever");
      } else {
        s.SamePages = 0;
        s.LastPage.clear();
      }
      s.PageToken = s.PendingToken;
      s.PageSize = s.PendingSize;
      s.Count = page.Items->Size();
      s.NextToken = page.Continuation;
      s.Page = std::move(page);
      s.HasPage = true;
      s.Index = std::min(s.SkipOnArrival, s.Count);
      if (s.SkipOnArrival > 0) {
        // The range is unchanged: the position says what was returned.
        s.ResumeKey.reset();
        s.ResumeRids.clear();
      }
      s.SkipOnArrival = 0;
      return true;
    } catch (...) {
      diag.Latency += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.Started);
      auto error = std::current_exception();
      try {
        std::rethrow_exception(error);
      } catch (Error const& e) {
        if (e.Diagnostics()) diag.Requests.push_back(e.Diagnostics());
      } catch (...) {}
      if (IsPartitionRangeGone(error) && !s.Target.RangeId.empty()) {
        Split(s);
        return false;
      }
      if (m_options.PartialResults == PartialResultsPolicy::Fail) throw;
      try {
        std::rethrow_exception(error);
      } catch (std::exception const& e) {
        diag.Error = diag.Error.empty() ? e.what() : diag.Error + "; " + e.what();
      }
      s.Done = true;
      s.HasPage = false;
      m_result.Partial = true;
      return false;
    }
  }

  // The range of `s` is gone: its span is now read from the ranges covering it,
  // each resumed with the continuation that failed (as the official SDKs do).
  void Split(Stream& s) {
    if (++s.Splits > MaxSplitsPerStream)
      throw Error(ErrorCode::Internal, "partition key ranges of " + Describe(s) + " keep changing: gave up after " +
                                           std::to_string(MaxSplitsPerStream) + " refreshes");
    auto children = m_source.RangesAfterSplit(s.Target.Collection, s.Target.RangeId, s.Target.Min, s.Target.Max);
    if (children.empty())
      throw Error(ErrorCode::Internal, "partition key range " + s.Target.RangeId + " of " +
                                           m_spec.CollectionNames[s.Target.Collection] +
                                           " is gone and no range covers its span any more");
    // What the failed request would have skipped: its items are now spread
    // over the children, so an ORDER BY stream skips by key instead.
    std::shared_ptr<rapidjson::Document> key = s.ResumeKey;
    std::vector<std::string> rids = s.ResumeRids;
    if (s.SkipOnArrival > 0 && !key)
      throw Error(ErrorCode::Internal, "cannot resume " + Describe(s) +
                                           " after a split: the continuation holds no sort key for the items already "
                                           "returned");
    s.Replaced = true;
    for (auto const& c : children) {
      auto child = std::make_unique<Stream>();
      child->Target = s.Target;
      child->Target.RangeId = c.Id;
      child->Target.RangeMin = c.Min;
      child->Target.RangeMax = c.Max;
      child->Target.Min = std::max(c.Min, s.Target.Min);
      // "" as a maximum is the end of the key space ("FF" in practice).
      child->Target.Max = s.Target.Max.empty() ? c.Max : (c.Max.empty() ? s.Target.Max : std::min(c.Max, s.Target.Max));
      child->PageToken = s.PendingToken;
      child->PageSize = s.PendingSize;
      child->ResumeKey = key;
      child->ResumeRids = rids;
      child->Splits = s.Splits;
      m_streams.push_back(std::move(child));
    }
  }

  // ORDER BY: compares two rows' sort keys in query order (negative: a first).
  int CompareRows(Value const* a, Value const* b) const {
    for (std::size_t i = 0; i < m_info.OrderBy.size(); ++i) {
      auto item = [&](Value const* items) -> Value const* {
        if (!items || i >= items->Size()) return nullptr;
        return Find((*items)[static_cast<rapidjson::SizeType>(i)], "item");
      };
      int c = CompareCosmosValues(item(a), item(b));
      if (c != 0) return m_info.OrderBy[i] == SortOrder::Descending ? -c : c;
    }
    return 0;
  }

  Value const& At(Stream const& s, std::size_t i) const { return (*s.Page.Items)[static_cast<rapidjson::SizeType>(i)]; }

  // Drops, at the head of a resumed child, what its parent already returned.
  void ApplyResumeKey(Stream& s) {
    while (s.ResumeKey && s.Index < s.Count) {
      auto const& row = At(s, s.Index);
      int c = CompareRows(OrderByItems(row), s.ResumeKey.get());
      if (c < 0) {
        ++s.Index;
        continue;
      }
      if (c == 0) {
        auto const* rid = Find(row, "_rid");
        if (rid && rid->IsString()) {
          auto it = std::find(s.ResumeRids.begin(), s.ResumeRids.end(),
                              std::string(rid->GetString(), rid->GetStringLength()));
          if (it != s.ResumeRids.end()) {
            s.ResumeRids.erase(it);
            ++s.Index;
            continue;
          }
        }
        return;  // a tie not returned yet: from here on everything is new
      }
      s.ResumeKey.reset();
      s.ResumeRids.clear();
    }
  }

  // Page size for a new request: the caller's, but never more than this call
  // can still use, so that pages are rarely fetched and dropped.
  int NextPageSize() const {
    if (m_materialized) return m_options.PageSize;
    std::uint64_t need = Need();
    if (need == UINT64_MAX) return m_options.PageSize;
    auto capped = static_cast<int>(std::min<std::uint64_t>(need, 1000000));
    if (m_options.PageSize > 0) capped = std::min(capped, m_options.PageSize);
    return std::max(capped, 1);
  }

  // Makes sure `s` has an unconsumed item (fetching pages as needed). False
  // when it has none: finished, failed (ReturnPartial) or split (Replaced).
  bool Fill(Stream& s) {
    while (!s.Done && !s.Replaced) {
      if (s.HasPage) {
        ApplyResumeKey(s);
        if (s.Index < s.Count) return true;
        if (s.NextToken.empty()) {
          s.Done = true;
          return false;
        }
        s.HasPage = false;
        s.PageToken = s.NextToken;
        s.PageSize = NextPageSize();
        s.NextToken.clear();
      }
      if (!s.Pending) Launch(s, s.PageToken, s.PageSize);
      if (!Await(s)) return false;
    }
    return false;
  }

  // Requests in flight at once: MaxConcurrency, 0 = no limit.
  std::size_t Window() const { return m_options.MaxConcurrency == 0 ? SIZE_MAX : m_options.MaxConcurrency; }

  // Starts the first page of every live stream without one, at most
  // Window() in flight, and waits for them (splits are followed).
  void Prefetch() {
    std::size_t const window = Window();
    while (true) {
      std::vector<Stream*> todo;
      auto const live = Live();
      for (auto* s : live)
        if (!s->Done && !s->HasPage) todo.push_back(s);
      if (todo.empty()) return;
      std::vector<Stream*> inFlight;
      for (auto* s : todo) {
        if (inFlight.size() == window) {
          Await(*inFlight.front());
          inFlight.erase(inFlight.begin());
        }
        if (!s->Pending) Launch(*s, s->PageToken, s->PageSize);
        inFlight.push_back(s);
      }
      for (auto* s : inFlight) Await(*s);
    }
  }

  // --- streaming ---------------------------------------------------------------

  // How many more merged items (past DISTINCT) this call may consume.
  std::uint64_t Need() const {
    std::uint64_t need = UINT64_MAX;
    auto cap = [&](std::uint64_t limit) { need = std::min(need, limit > m_consumed ? limit - m_consumed : 0); };
    if (m_info.Top) cap(*m_info.Top);
    if (m_info.Limit) cap(*m_info.Offset + *m_info.Limit);
    if (m_options.MaxItems > 0) {
      std::uint64_t offsetLeft = m_info.Offset && *m_info.Offset > m_consumed ? *m_info.Offset - m_consumed : 0;
      std::uint64_t room = m_options.MaxItems > m_items.Size() ? m_options.MaxItems - m_items.Size() : 0;
      cap(m_consumed + offsetLeft + room);
    }
    return need;
  }

  bool Complete() const {
    return (m_info.Top && m_consumed >= *m_info.Top) || (m_info.Limit && m_consumed >= *m_info.Offset + *m_info.Limit);
  }

  // The next row in merged order, consumed from its stream. False at the end.
  bool NextRow(RowRef& out) {
    if (!m_orderBy) {
      auto const& live = Live();
      for (; m_unionPosition < live.size(); ++m_unionPosition) {
        Stream* s = live[m_unionPosition];
        if (!Fill(*s)) {
          if (s->Replaced) return NextRow(out);  // read its children in its place
          continue;
        }
        // Union pages are consumed whole, so a continuation never points
        // inside one: a page longer than what is still needed is fetched
        // again, shorter.
        if (s->Index == 0 && m_options.MaxItems > 0 && s->Count > Need() && Need() > 0 &&
            s->PageSize != static_cast<int>(Need())) {
          s->HasPage = false;
          s->NextToken.clear();
          Launch(*s, s->PageToken, static_cast<int>(std::min<std::uint64_t>(Need(), 1000000)));
          Await(*s);
          return NextRow(out);
        }
        Take(*s, out);
        return true;
      }
      return false;
    }
    Stream* best = nullptr;
    for (bool again = true; again;) {
      again = false;
      best = nullptr;
      auto const live = Live();
      for (auto* s : live) {
        if (!Fill(*s)) {
          if (s->Replaced) again = true;  // children need their first page
          continue;
        }
        if (!best) {
          best = s;
          continue;
        }
        // Ties keep stream order (collection, then EPK), so the merge is deterministic.
        if (CompareRows(OrderByItems(At(*s, s->Index)), OrderByItems(At(*best, best->Index))) < 0) best = s;
      }
      if (again) Prefetch();
    }
    if (!best) return false;
    Take(*best, out);
    return true;
  }

  void Take(Stream& s, RowRef& out) {
    out.From = &s;
    out.Body = s.Page.Body;
    out.Row = &At(s, s.Index);
    out.Position = s.Index;
    s.Index += 1;
  }

  bool Suppressed(RowRef const& r) const {
    auto const& flags = r.From->Page.Suppressed;
    return r.Position < flags.size() && flags[r.Position];
  }

  // The value a row stands for in the result (nullptr: undefined, no row).
  Value const* Output(Value const& row) const {
    if (!m_orderBy) return &row;
    return Find(row, "payload");
  }

  void RunStreaming() {
    Prefetch();
    while (!Complete()) {
      if (m_options.MaxItems > 0 && m_items.Size() >= m_options.MaxItems) {
        FinishWithToken();
        return;
      }
      RowRef row;
      if (!NextRow(row)) return;
      if (Suppressed(row)) continue;
      auto const* value = Output(*row.Row);
      if (!value) continue;
      if (m_info.Distinct == DistinctType::Ordered) {
        auto hash = Sha256Hex(CanonicalJson(*value));
        if (hash == m_lastDistinct) continue;
        m_lastDistinct = std::move(hash);
      }
      ++m_consumed;
      if (m_info.Offset && m_consumed <= *m_info.Offset) continue;
      Emit(*row.From, *value);
    }
  }

  void Emit(Stream const& from, Value const& value) {
    Value copy(value, m_items.GetAllocator());
    m_items.PushBack(copy, m_items.GetAllocator());
    Diag(from).Items += 1;
  }

  void FinishWithToken() {
    FanOutToken token;
    token.Binding = m_spec.Binding;
    token.Epoch = m_spec.Epoch;
    token.Consumed = m_consumed;
    token.LastDistinct = m_lastDistinct;
    auto const live = Live();
    for (auto* s : live) {
      if (s->Done) continue;
      StreamState st;
      st.Target = s->Target;
      if (s->HasPage && s->Index >= s->Count) {
        if (s->NextToken.empty()) continue;  // finished
        st.Token = s->NextToken;
        st.PageSize = 0;
      } else if (s->HasPage) {
        st.Token = s->PageToken;
        st.PageSize = s->PageSize;
        st.Skip = s->Index;
        if (m_orderBy && s->Index > 0) {
          auto const* key = OrderByItems(At(*s, s->Index - 1));
          if (key) {
            st.LastKeyJson = Compact(*key);
            for (std::size_t i = 0; i < s->Index; ++i) {
              auto const& row = At(*s, i);
              if (CompareRows(OrderByItems(row), key) != 0) continue;
              if (auto const* rid = Find(row, "_rid"); rid && rid->IsString())
                st.TieRids.emplace_back(rid->GetString(), rid->GetStringLength());
            }
          }
        }
      } else {
        // Not read in this call (or its request is still in flight): as restored.
        st.Token = s->PageToken;
        st.PageSize = s->PageSize;
        st.Skip = s->SkipOnArrival;
        if (s->ResumeKey) {
          st.LastKeyJson = Compact(*s->ResumeKey);
          st.TieRids = s->ResumeRids;
        }
      }
      token.Streams.push_back(std::move(st));
    }
    if (token.Streams.empty()) return;
    m_result.Continuation = token.Encode();
  }

  // --- non-streaming -----------------------------------------------------------

  struct Group {
    rapidjson::Document Keys;  // groupByItems
    std::vector<Aggregator> Aggregators;
  };

  // Reads every live stream to its end, at most Window() pages in flight;
  // `sink` sees each row once.
  template <typename Sink>
  void Drain(Sink&& sink) {
    std::size_t const window = Window();
    while (true) {
      std::vector<Stream*> inFlight;
      auto const live = Live();
      for (auto* s : live) {
        if (s->Done) continue;
        if (s->HasPage) {
          ApplyResumeKey(*s);
          for (; s->Index < s->Count; ++s->Index) {
            RowRef r{s, s->Page.Body, &At(*s, s->Index), s->Index};
            if (!Suppressed(r)) {
              sink(r);
              Diag(*s).Items += 1;
            }
          }
          if (s->NextToken.empty()) {
            s->Done = true;
            continue;
          }
          s->HasPage = false;
          s->PageToken = s->NextToken;
          s->PageSize = 0;
          s->NextToken.clear();
        }
        if (inFlight.size() == window) {
          Await(*inFlight.front());
          inFlight.erase(inFlight.begin());
        }
        Launch(*s, s->PageToken, s->PageSize);
        inFlight.push_back(s);
      }
      if (inFlight.empty() && live.size() == Live().size()) return;
      for (auto* s : inFlight) Await(*s);
    }
  }

  void RunMaterialized(std::uint64_t alreadyReturned) {
    rapidjson::Document results(rapidjson::kArrayType);
    auto& alloc = results.GetAllocator();
    if (m_info.HasGrouping()) {
      RunGrouping(results);
    } else if (m_orderBy) {
      // ORDER BY with unordered DISTINCT: the ordered merge, then first occurrences.
      RowRef r;
      std::vector<std::pair<std::shared_ptr<void const>, Value const*>> rows;
      Prefetch();
      while (NextRow(r))
        if (!Suppressed(r)) {
          rows.emplace_back(r.Body, r.Row);
          Diag(*r.From).Items += 1;
        }
      // Ties in a deterministic order whatever the range layout, so that a
      // resumed call skips exactly what was returned.
      std::stable_sort(rows.begin(), rows.end(), [&](auto const& a, auto const& b) {
        int c = CompareRows(OrderByItems(*a.second), OrderByItems(*b.second));
        if (c != 0) return c < 0;
        auto const* pa = Find(*a.second, "payload");
        auto const* pb = Find(*b.second, "payload");
        return (pa ? CanonicalJson(*pa) : std::string()) < (pb ? CanonicalJson(*pb) : std::string());
      });
      for (auto const& [body, row] : rows)
        if (auto const* p = Find(*row, "payload")) results.PushBack(Value(*p, alloc), alloc);
    } else {
      Drain([&](RowRef const& r) { results.PushBack(Value(*r.Row, alloc), alloc); });
      SortCanonically(results);
    }
    if (m_info.Distinct != DistinctType::None) KeepFirstOccurrences(results);
    // OFFSET/LIMIT and TOP apply to the merged result.
    std::uint64_t begin = m_info.Offset.value_or(0);
    std::uint64_t end = results.Size();
    if (m_info.Limit) end = std::min<std::uint64_t>(end, begin + *m_info.Limit);
    if (m_info.Top) end = std::min<std::uint64_t>(end, *m_info.Top);
    begin = std::min(begin + alreadyReturned, end);
    std::uint64_t stop = end;
    if (m_options.MaxItems > 0) stop = std::min<std::uint64_t>(end, begin + m_options.MaxItems);
    auto& out = m_items;
    for (std::uint64_t i = begin; i < stop; ++i)
      out.PushBack(Value(results[static_cast<rapidjson::SizeType>(i)], out.GetAllocator()), out.GetAllocator());
    if (stop < end) {
      FanOutToken token;
      token.Binding = m_spec.Binding;
      token.Epoch = m_spec.Epoch;
      token.Materialized = true;
      token.Consumed = alreadyReturned + (stop - begin);
      m_result.Continuation = token.Encode();
    }
  }

  static void SortCanonically(rapidjson::Document& values) {
    std::vector<std::pair<std::string, Value*>> keyed;
    for (auto& v : values.GetArray()) keyed.emplace_back(CanonicalJson(v), &v);
    std::stable_sort(keyed.begin(), keyed.end(), [](auto const& a, auto const& b) {
      int c = CompareCosmosValues(a.second, b.second);
      return c != 0 ? c < 0 : a.first < b.first;
    });
    rapidjson::Document sorted(rapidjson::kArrayType);
    for (auto& [text, v] : keyed) sorted.PushBack(Value(*v, sorted.GetAllocator()), sorted.GetAllocator());
    values.Swap(sorted);
  }

  static void KeepFirstOccurrences(rapidjson::Document& values) {
    std::unordered_set<std::string> seen;
    rapidjson::Document kept(rapidjson::kArrayType);
    for (auto& v : values.GetArray())
      if (seen.insert(CanonicalJson(v)).second) kept.PushBack(Value(v, kept.GetAllocator()), kept.GetAllocator());
    values.Swap(kept);
  }

  // GROUP BY and aggregates: one aggregator per alias (or one for SELECT
  // VALUE) per group; groups come out sorted by their grouping values.
  void RunGrouping(rapidjson::Document& results) {
    auto& alloc = results.GetAllocator();
    bool const value = m_info.HasSelectValue;
    std::optional<AggregateKind> valueKind;
    if (value && !m_info.Aggregates.empty()) valueKind = m_info.Aggregates.front();
    std::map<std::string, Group> groups;
    Drain([&](RowRef const& r) {
      Value const& row = *r.Row;
      Value const* keys = Find(row, "groupByItems");
      Value const* payload = row.IsObject() && Find(row, "payload") ? Find(row, "payload") : &row;
      std::string groupKey = keys ? CanonicalJson(*keys) : std::string();
      auto [it, fresh] = groups.try_emplace(groupKey);
      Group& g = it->second;
      if (fresh) {
        g.Keys.SetArray();
        if (keys) g.Keys.CopyFrom(*keys, g.Keys.GetAllocator());
        if (value)
          g.Aggregators.emplace_back(valueKind);
        else
          for (auto const& alias : m_info.Aliases) g.Aggregators.emplace_back(alias.second);
      }
      if (value) {
        if (valueKind) {
          // SELECT VALUE AGG(...): the partial is [{"item": x}].
          Value const* wrapped = payload->IsArray() && !payload->Empty() ? &(*payload)[0] : payload;
          g.Aggregators[0].Add(UnwrapPartial(*wrapped));
        } else {
          g.Aggregators[0].Add(payload);  // SELECT VALUE c.g ... GROUP BY c.g
        }
        return;
      }
      if (!payload->IsObject())
        throw Error(ErrorCode::Internal, "a GROUP BY row from " + Describe(*r.From) + " has no payload object");
      for (std::size_t i = 0; i < m_info.Aliases.size(); ++i) {
        auto const& [alias, kind] = m_info.Aliases[i];
        auto const* v = Find(*payload, alias.c_str());
        if (kind)
          g.Aggregators[i].Add(v ? UnwrapPartial(*v) : nullptr);
        else if (v)
          g.Aggregators[i].Add(v);
      }
    });
    std::vector<Group*> ordered;
    ordered.reserve(groups.size());
    for (auto& [k, g] : groups) ordered.push_back(&g);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](Group* a, Group* b) { return CompareCosmosValues(&a->Keys, &b->Keys) < 0; });
    for (auto* g : ordered) {
      if (value) {
        if (!g->Aggregators[0].HasResult()) continue;
        Value v;
        g->Aggregators[0].Result(v, alloc);
        results.PushBack(v, alloc);
        continue;
      }
      Value obj(rapidjson::kObjectType);
      for (std::size_t i = 0; i < m_info.Aliases.size(); ++i) {
        if (!g->Aggregators[i].HasResult()) continue;
        Value v;
        g->Aggregators[i].Result(v, alloc);
        obj.AddMember(Value(m_info.Aliases[i].first.c_str(), alloc), v, alloc);
      }
      results.PushBack(obj, alloc);
    }
  }

  MergeSpec const& m_spec;
  QueryInfo const& m_info;
  FanOutOptions const& m_options;
  IPageSource& m_source;
  bool m_orderBy = false;
  bool m_materialized = false;
  std::vector<std::unique_ptr<Stream>> m_streams;
  std::vector<Stream*> m_live;
  std::size_t m_liveCount = SIZE_MAX;
  std::size_t m_unionPosition = 0;
  std::vector<CollectionDiagnostics> m_diagnostics;
  std::uint64_t m_consumed = 0;
  std::string m_lastDistinct;
  FanOutResult m_result;
  rapidjson::Document m_items{rapidjson::kArrayType};  // the result rows; FanOutResult::Items adopts them
};
}  // namespace

FanOutResult RunMerge(MergeSpec const& spec, FanOutOptions const& options, IPageSource& source) {
  Engine engine(spec, options, source);
  return engine.Run();
}

}  // namespace docshard::client::detail

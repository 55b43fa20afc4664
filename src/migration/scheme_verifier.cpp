#include "docshard/migration/scheme_verifier.hpp"

#include "work_queue.hpp"

#include "docshard/cosmos/range_stream.hpp"
#include "docshard/errors.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

namespace docshard {

std::string VerifyReport::Summary() const {
  return std::to_string(Lost.size()) + " lost / " + std::to_string(Duplicated.size()) + " duplicated / " +
         std::to_string(Misplaced.size()) + " misplaced";
}

VerifyReport VerifyScheme(PartitionedClient& client, IPartitionResolver const& scheme, VerifyOptions const& options) {
  struct Found {
    std::vector<std::string> In;
    std::string Expected;
    bool Misplaced = false;
  };
  std::map<std::pair<std::string, std::string>, Found> found;  // (id, key JSON)
  VerifyReport report;

  auto collections = scheme.Collections();
  std::vector<std::pair<CollectionRef, bool>> toScan;  // collection, belongs to the scheme
  for (auto const& c : collections) toScan.emplace_back(c, true);
  for (auto const& c : options.AlsoScan) {
    bool known = false;
    for (auto const& s : toScan) known |= s.first.Account() == c.Account() && s.first.Link() == c.Link();
    if (!known) toScan.emplace_back(c, false);
  }

  // Every collection range by range, at most MaxParallel streams at a time;
  // a range that splits is read on from its children.
  struct Task {
    std::size_t Collection;
    RangeStream Stream;
  };
  detail::WorkQueue<Task> queue;
  for (std::size_t i = 0; i < toScan.size(); ++i) {
    auto const& collection = toScan[i].first;
    report.Counts[collection.Text()];
    if (options.KeepIds) report.Ids[collection.Text()];
    for (auto& s : OpenRangeStreams(client.Account(collection.Account()), collection.Link()))
      queue.Push({i, std::move(s)});
  }

  std::mutex mutex;  // guards found, report and firstError
  std::exception_ptr firstError;
  QueryOptions feed;
  feed.MaxItemCount = options.PageSize;
  auto scan = [&](Task task) {
    auto const& collection = toScan[task.Collection].first;
    bool const inScheme = toScan[task.Collection].second;
    auto& account = client.Account(collection.Account());
    auto& stream = task.Stream;
    while (!stream.Done) {
      QueryPage page;
      for (int attempt = 1;; ++attempt) {
        try {
          page = ReadRangeStreamPage(account, collection.Link(), stream, feed);
          break;
        } catch (ThrottledError const& e) {
          if (attempt >= 20) throw;
          std::this_thread::sleep_for(std::max(e.RetryAfter(), std::chrono::milliseconds(50)));
        } catch (PartitionKeyRangeGoneError const&) {
          for (auto& child : ReplaceGoneRangeStream(account, collection.Link(), stream))
            queue.Push({task.Collection, std::move(child)});
          return;
        }
      }
      std::lock_guard lock(mutex);
      auto& count = report.Counts[collection.Text()];
      std::set<std::string>* ids = options.KeepIds ? &report.Ids[collection.Text()] : nullptr;
      for (auto const& d : page.Documents().GetArray()) {
        ++count;
        std::string const id = d.HasMember("id") && d["id"].IsString()
                                   ? std::string(d["id"].GetString(), d["id"].GetStringLength())
                                   : "";
        if (ids) ids->insert(id);
        std::string keyJson, expected;
        bool misplaced = !inScheme;
        try {
          auto key = scheme.GetPartitionKey(d);
          if (key) keyJson = key->ToJson();
          auto const& owner = scheme.ResolveForCreate(d);
          expected = owner.Text();
          if (owner.Account() != collection.Account() || owner.Link() != collection.Link()) misplaced = true;
        } catch (Error const&) {
          misplaced = true;  // the scheme cannot place it at all
        }
        auto& f = found[{id, keyJson}];
        f.In.push_back(collection.Text());
        f.Expected = expected;
        f.Misplaced |= misplaced;
      }
      stream.Continuation = page.Continuation();
      stream.Done = !page.HasMoreResults();
    }
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < std::max(1, options.MaxParallel); ++t)
    workers.emplace_back([&] {
      while (auto task = queue.Take()) {
        try {
          scan(std::move(*task));
        } catch (...) {
          std::lock_guard lock(mutex);
          if (!firstError) firstError = std::current_exception();
          queue.Stop();
        }
        queue.Finished();
      }
    });
  for (auto& w : workers) w.join();
  if (firstError) std::rethrow_exception(firstError);

  report.Documents = found.size();
  for (auto const& [identity, f] : found) {
    VerifyOffender o{identity.first, identity.second, f.In, f.Expected};
    if (f.In.size() > 1) report.Duplicated.push_back(o);
    if (f.Misplaced) report.Misplaced.push_back(std::move(o));
  }
  if (options.Expected) {
    for (auto const& [id, key] : *options.Expected) {
      if (found.count({id, key.ToJson()})) continue;
      std::string expected;
      try {
        expected = scheme.ResolveForCreate(key).Text();
      } catch (Error const&) {
      }
      report.Lost.push_back({id, key.ToJson(), {}, expected});
    }
  }
  return report;
}

} // namespace docshard

#include "docshard/migration/scheme_verifier.hpp"

#include "docshard/errors.hpp"

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

  QueryOptions feed;
  feed.MaxItemCount = options.PageSize;
  for (auto const& [collection, inScheme] : toScan) {
    auto& account = client.Account(collection.Account());
    auto& count = report.Counts[collection.Text()];
    std::set<std::string>* ids = options.KeepIds ? &report.Ids[collection.Text()] : nullptr;
    std::string continuation;
    do {
      QueryPage page;
      for (int attempt = 1;; ++attempt) {
        try {
          page = account.ReadFeedPage(collection.Link(), continuation, feed);
          break;
        } catch (ThrottledError const& e) {
          if (attempt >= 20) throw;
          std::this_thread::sleep_for(std::max(e.RetryAfter(), std::chrono::milliseconds(50)));
        }
      }
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
      continuation = page.Continuation();
    } while (!continuation.empty());
  }

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

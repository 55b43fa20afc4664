#include "docshard/migration/scheme_verifier.hpp"

#include "client/provisional.hpp"

#include "work_queue.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/md5_hash_generator.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace docshard::migration {

std::string VerifyReport::Summary() const {
  return std::to_string(Lost.size()) + " lost / " + std::to_string(Duplicated.size()) + " duplicated / " +
         std::to_string(Misplaced.size()) + " misplaced" +
         (Provisional.empty() ? std::string() : " / " + std::to_string(Provisional.size()) + " provisional");
}

namespace {

using Digest = std::array<std::uint8_t, 16>;

// (id, key) as 16 bytes. Length-prefixed so that no two pairs share an input;
// MD5 because only accidental collisions matter here (2^-128 per pair), and
// placement code never uses std::hash.
Digest IdentityDigest(std::string const& id, std::string const& keyJson) {
  std::string bytes = std::to_string(id.size());
  bytes += ':';
  bytes += id;
  bytes += keyJson;
  return Md5Digest(bytes);
}

// The reference set as sorted digests with a found flag each: 17 bytes per
// expected document, however long its id and key.
class ReferenceDigests {
public:
  explicit ReferenceDigests(VerifyReferenceSet const& set) {
    set([this](std::string const& id, PartitionKey const& key) {
      m_digests.push_back(IdentityDigest(id, key.ToJson()));
    });
    std::sort(m_digests.begin(), m_digests.end());
    m_digests.erase(std::unique(m_digests.begin(), m_digests.end()), m_digests.end());
    m_found.assign(m_digests.size(), 0);
  }

  // Caller holds the verifier's lock.
  void MarkFound(Digest const& d) {
    auto it = std::lower_bound(m_digests.begin(), m_digests.end(), d);
    if (it != m_digests.end() && *it == d) m_found[static_cast<std::size_t>(it - m_digests.begin())] = 1;
  }

  bool Found(Digest const& d) const {
    auto it = std::lower_bound(m_digests.begin(), m_digests.end(), d);
    return it != m_digests.end() && *it == d && m_found[static_cast<std::size_t>(it - m_digests.begin())];
  }

private:
  std::vector<Digest> m_digests;
  std::vector<std::uint8_t> m_found;
};

// Whether `collection` holds (id, key): a point read, or, for an id a point
// read cannot name (/ \ ? #: such documents exist, written by other tools), a
// single-key query on the id.
bool Exists(cosmos::CosmosClient& account, std::string const& collection, std::string const& id,
            PartitionKey const& key) {
  if (id.find_first_of("/\\?#") == std::string::npos && !id.empty()) {
    try {
      account.ReadDocument(collection, id, client::PartitionedClient::HeaderValue(key));
      return true;
    } catch (cosmos::NotFoundError const&) {
      return false;
    }
  }
  cosmos::QueryOptions options;
  options.PartitionKey = client::PartitionedClient::HeaderValue(key);
  auto const result = account.QueryDocuments(
      collection, cosmos::SqlQuery("SELECT c.id FROM c WHERE c.id = @id").WithParameter("@id", id), options);
  return result.Documents.View().Size() != 0;
}

// A document kept after the scan: misplaced, or without a partition key.
struct Kept {
  std::vector<std::string> In;  // collections holding a copy
  std::string Expected;         // where the scheme routes it ("" when it cannot)
  std::optional<PartitionKey> Key;
  bool Misplaced = false;
};

}  // namespace

VerifyReport VerifyScheme(client::PartitionedClient& client, IPartitionResolver const& scheme,
                          VerifyOptions const& options) {
  VerifyReferenceSet reference = options.ExpectedStream;
  if (options.Expected) {
    auto const* expected = &*options.Expected;
    reference = [expected](auto const& visit) {
      for (auto const& [id, key] : *expected) visit(id, key);
    };
  }
  std::optional<ReferenceDigests> digests;
  if (reference) digests.emplace(reference);

  std::map<std::pair<std::string, std::string>, Kept> kept;  // (id, key JSON)
  std::uint64_t copies = 0;                                  // documents read, all collections
  VerifyReport report;

  auto collections = scheme.Collections();
  std::vector<std::pair<CollectionRef, bool>> toScan;  // collection, belongs to the scheme
  toScan.reserve(collections.size() + options.AlsoScan.size());
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
    cosmos::RangeStream Stream;
  };
  detail::WorkQueue<Task> queue;
  for (std::size_t i = 0; i < toScan.size(); ++i) {
    auto const& collection = toScan[i].first;
    report.Counts[collection.Text()];
    if (options.KeepIds) report.Ids[collection.Text()];
    for (auto& s : cosmos::OpenRangeStreams(client.Account(collection.Account()), collection.Link()))
      queue.Push({i, std::move(s)});
  }

  std::mutex mutex;  // guards kept, copies, digests, report and firstError
  std::exception_ptr firstError;
  cosmos::QueryOptions feed;
  feed.MaxItemCount = options.PageSize;
  auto scan = [&](Task task) {
    auto const& collection = toScan[task.Collection].first;
    bool const inScheme = toScan[task.Collection].second;
    auto& account = client.Account(collection.Account());
    auto& stream = task.Stream;
    while (!stream.Done) {
      cosmos::QueryPage page;
      for (int attempt = 1;; ++attempt) {
        try {
          page = cosmos::ReadRangeStreamPage(account, collection.Link(), stream, feed);
          break;
        } catch (cosmos::ThrottledError const& e) {
          if (attempt >= 20) throw;
          std::this_thread::sleep_for(std::max(e.RetryAfter(), std::chrono::milliseconds(50)));
        } catch (cosmos::PartitionKeyRangeGoneError const&) {
          for (auto& child : cosmos::ReplaceGoneRangeStream(account, collection.Link(), stream))
            queue.Push({task.Collection, std::move(child)});
          return;
        }
      }
      std::lock_guard lock(mutex);
      auto& count = report.Counts[collection.Text()];
      std::set<std::string>* ids = options.KeepIds ? &report.Ids[collection.Text()] : nullptr;
      for (auto const& d : JsonInterop::Value(page.Documents()).GetArray()) {
        if (client::detail::IsProvisional(d)) {
          // A move in flight or killed, not a document (yet): named, not counted.
          std::string const id = d.HasMember("id") && d["id"].IsString()
                                     ? std::string(d["id"].GetString(), d["id"].GetStringLength())
                                     : std::string();
          std::string keyJson;
          try {
            if (auto key = scheme.GetPartitionKey(d)) keyJson = key->ToJson();
          } catch (Error const&) {}
          report.Provisional.push_back({id, keyJson, {collection.Text()}, ""});
          continue;
        }
        ++count;
        ++copies;
        std::string const id =
            d.HasMember("id") && d["id"].IsString() ? std::string(d["id"].GetString(), d["id"].GetStringLength()) : "";
        if (ids) ids->insert(id);
        std::string keyJson, expected;
        std::optional<PartitionKey> key;
        bool misplaced = !inScheme;
        try {
          key = scheme.GetPartitionKey(d);
          if (key) keyJson = key->ToJson();
          auto const& owner = scheme.ResolveForCreate(d);
          expected = owner.Text();
          if (owner.Account() != collection.Account() || owner.Link() != collection.Link()) misplaced = true;
        } catch (Error const&) {
          misplaced = true;  // the scheme cannot place it at all
        }
        if (digests) digests->MarkFound(IdentityDigest(id, keyJson));
        // A copy in its right place is the only one there can be in a right
        // place: forget it, unless it has no key to look it up by later.
        if (!misplaced && key) continue;
        auto& k = kept[{id, keyJson}];
        k.In.push_back(collection.Text());
        k.Expected = expected;
        k.Key = key;
        k.Misplaced |= misplaced;
      }
      stream.Continuation = page.Continuation();
      stream.Done = !page.HasMoreResults();
    }
  };
  auto runWorkers = [&](auto const& work) {
    std::vector<std::thread> workers;
    for (int t = 0; t < std::max(1, options.MaxParallel); ++t) workers.emplace_back(work);
    for (auto& w : workers) w.join();
    if (firstError) std::rethrow_exception(firstError);
  };
  runWorkers([&] {
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

  // Misplaced copies: is there also one where the scheme wants it? A point
  // read there says (the scan forgot the right-place copies).
  std::vector<std::pair<std::string, Kept*>> lookups;  // id, kept entry
  for (auto& [identity, k] : kept) {
    if (!k.Misplaced || k.Expected.empty() || !k.Key) continue;
    if (std::find(k.In.begin(), k.In.end(), k.Expected) != k.In.end()) continue;
    lookups.emplace_back(identity.first, &k);
  }
  std::map<std::string, CollectionRef> byText;
  for (auto const& c : collections) byText.emplace(c.Text(), c);
  std::atomic<std::size_t> next{0};
  runWorkers([&] {
    for (std::size_t i; (i = next++) < lookups.size();) {
      try {
        auto& [id, k] = lookups[i];
        auto const target = byText.find(k->Expected);
        if (target == byText.end()) continue;  // a collection outside the scheme: cannot be its owner
        if (!Exists(client.Account(target->second.Account()), target->second.Link(), id, *k->Key)) continue;
        std::lock_guard lock(mutex);
        k->In.push_back(k->Expected);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!firstError) firstError = std::current_exception();
        next = lookups.size();
      }
    }
  });

  std::uint64_t extraCopies = 0;
  for (auto const& [identity, k] : kept) {
    VerifyOffender o{identity.first, identity.second, k.In, k.Expected};
    if (k.In.size() > 1) {
      extraCopies += k.In.size() - 1;
      report.Duplicated.push_back(o);
    }
    if (k.Misplaced) report.Misplaced.push_back(std::move(o));
  }
  report.Documents = copies - extraCopies;
  if (digests) {
    reference([&](std::string const& id, PartitionKey const& key) {
      auto const keyJson = key.ToJson();
      if (digests->Found(IdentityDigest(id, keyJson))) return;
      std::string expected;
      try {
        expected = scheme.ResolveForCreate(key).Text();
      } catch (Error const&) {}
      report.Lost.push_back({id, keyJson, {}, expected});
    });
  }
  return report;
}

}  // namespace docshard::migration

#include "docshard/store/spillover_manager.hpp"

#include "docshard/core/atomic_file.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/cosmos/range_stream.hpp"

#include "cosmos/cosmos_requests.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <unistd.h>

namespace docshard::store {

namespace {
std::shared_ptr<resolvers::SpilloverPartitionResolver const> AsSpillover(ResolverPtr const& r,
                                                                         std::string const& name) {
  auto s = std::dynamic_pointer_cast<resolvers::SpilloverPartitionResolver const>(r);
  if (!s)
    throw InvalidArgumentError("SpilloverManager: resolver \"" + name + "\" is \"" + r->Type() +
                               "\", not \"spillover\"");
  return s;
}

}  // namespace

std::map<std::string, std::int64_t, std::less<>> ParseResourceNumbers(std::string_view header) {
  std::map<std::string, std::int64_t, std::less<>> out;
  while (!header.empty()) {
    auto semi = header.find(';');
    auto entry = header.substr(0, semi);
    header = semi == std::string_view::npos ? std::string_view() : header.substr(semi + 1);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    auto name = entry.substr(0, eq), value = entry.substr(eq + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size() || name.empty()) continue;
    out.emplace(std::string(name), v);
  }
  return out;
}

SpilloverManager::SpilloverManager(std::shared_ptr<client::PartitionedClient> client, SpilloverManagerOptions options)
    : m_client(std::move(client)), m_options(std::move(options)) {
  if (!m_client) throw InvalidArgumentError("SpilloverManager: no client");
  if (m_options.MaxStepsPerCheck < 1) throw InvalidArgumentError("SpilloverManager: MaxStepsPerCheck must be >= 1");
}

SpilloverManager::~SpilloverManager() { Stop(); }

void SpilloverManager::Start() {
  m_worker.Start([this] { return Round(); });
}

void SpilloverManager::Stop() { m_worker.Stop(); }

std::chrono::milliseconds SpilloverManager::Round() {
  std::chrono::milliseconds interval{1000};
  try {
    auto result = CheckNow();
    if (m_options.OnCheck) m_options.OnCheck(result);
  } catch (...) {
    if (m_options.OnError) m_options.OnError(std::current_exception());
  }
  try {
    auto r = std::dynamic_pointer_cast<resolvers::SpilloverPartitionResolver const>(
        m_client->GetResolver(m_options.Resolver));
    interval = m_options.CheckInterval.value_or(r ? r->Settings().CheckInterval : interval);
  } catch (...) {}
  return interval;
}

CollectionFill SpilloverManager::MeasureFill(resolvers::SpilloverPartitionResolver const& resolver,
                                             CollectionRef const& collection) const {
  auto& account = m_client->Account(collection.Account());
  auto request = cosmos::CosmosRequests::ReadCollection(collection.Link());
  // Real Cosmos DB reports documentsCount only when asked to.
  request.Headers.Set("x-ms-populate-quota-info", "true");
  auto response = account.Send(std::move(request));
  auto const maxDocuments = resolver.Settings().MaxDocumentsPerCollection;
  if (auto fill = FillFromUsageHeaders(response.Headers(), maxDocuments)) return *fill;
  CollectionFill fill;
  // One COUNT per partition key range, summed: the gateway refuses a COUNT
  // across ranges (400/1004); ranges that split meanwhile are counted through
  // their children.
  fill.Documents = static_cast<std::int64_t>(cosmos::CountDocumentsByRange(account, collection.Link()));
  fill.Quota = maxDocuments;
  return fill;
}

std::optional<CollectionFill> FillFromUsageHeaders(http::HttpHeaders const& headers,
                                                   std::optional<std::int64_t> maxDocumentsPerCollection) {
  auto usage = ParseResourceNumbers(headers.Get("x-ms-resource-usage").value_or(""));
  auto quota = ParseResourceNumbers(headers.Get("x-ms-resource-quota").value_or(""));
  auto count = usage.find("documentsCount");
  if (count == usage.end()) return std::nullopt;
  CollectionFill fill;
  fill.Documents = count->second;
  fill.FromBackend = true;
  if (auto q = quota.find("documentsCount"); q != quota.end() && q->second > 0)
    fill.Quota = q->second;
  else
    fill.Quota = maxDocumentsPerCollection;
  auto us = usage.find("documentsSize"), qs = quota.find("documentsSize");
  if (us != usage.end() && qs != quota.end() && qs->second > 0)
    fill.SizeRatio = static_cast<double>(us->second) / static_cast<double>(qs->second);
  return fill;
}

SpilloverCheck SpilloverManager::CheckNow() { return Check(true); }
SpilloverCheck SpilloverManager::Converge() { return Check(false); }

SpilloverCheck SpilloverManager::Check(bool measure) {
  std::lock_guard checkLock(m_checkMutex);
  auto const& name = m_options.Resolver;
  auto start = m_client->GetResolverSnapshot(name);
  auto resolver = AsSpillover(start.Resolver, name);
  auto const settings = resolver->Settings();  // a copy: `resolver` is rebuilt below

  SpilloverCheck result;
  result.Measured = resolver->CollectionIds().back();
  result.Epoch = start.Epoch;
  bool changed = false;
  if (!measure) {
    // Converge only: adopt what other clients created, create nothing.
    auto newer = NewerCollections(*resolver);
    if (!newer.empty()) {
      result.Adopted = newer;
      resolver = resolver->WithAppended(std::move(newer));
      changed = true;
    }
  }
  for (int step = 0; measure && step < m_options.MaxStepsPerCheck; ++step) {
    auto fill = MeasureFill(*resolver, resolver->Newest());
    if (!fill.Quota && fill.SizeRatio == 0)
      throw InvalidArgumentError("spillover \"" + name + "\": the backend reports no quota for " +
                                 resolver->Newest().Text() + "; set maxDocumentsPerCollection");
    auto threshold = fill.Quota ? resolver->Threshold(*fill.Quota) : 0;
    if (step == 0) {
      result.Documents = fill.Documents;
      result.Threshold = threshold;
    }
    bool full = (fill.Quota && fill.Documents >= threshold) || fill.SizeRatio >= settings.FillFactor;
    if (!full) break;

    // Full. Someone may already have moved on: adopt what exists first.
    auto& account = m_client->Account(settings.Account);
    auto newer = NewerCollections(*resolver);
    if (newer.empty()) {
      auto id = resolver->CollectionId(resolver->NextNumber());
      try {
        auto request = cosmos::CosmosRequests::CreateCollection(settings.Database, resolver->CollectionDefinition(id));
        request.Idempotent = true;  // a retry that meets our own create answers 409: adopted below
        account.Send(std::move(request));
        result.Created.push_back(id);
      } catch (cosmos::ConflictError const&) {
        result.Adopted.push_back(id);  // another client made it between our list and our create
      }
      newer.push_back(std::move(id));
    } else {
      result.Adopted.insert(result.Adopted.end(), newer.begin(), newer.end());
    }
    resolver = resolver->WithAppended(std::move(newer));
    changed = true;
  }

  if (changed) {
    // Publish only over the snapshot we started from: if anyone published
    // meanwhile (a scheme watcher, another manager), the next check starts
    // from theirs; the collections made here are adopted then.
    if (m_client->CompareAndSetResolver(name, start.Resolver, resolver, start.Epoch + 1)) {
      result.Published = true;
      result.Epoch = start.Epoch + 1;
    } else {
      result.Epoch = m_client->GetEpoch(name);
    }
  }
  result.Newest = AsSpillover(m_client->GetResolver(name), name)->CollectionIds().back();
  if (result.Published) {
    // The switch is live; saving it is secondary: failures are reported, not thrown.
    try {
      if (!m_options.StatePath.empty()) SaveState(m_options.StatePath);
      if (m_options.Store) SaveToStore(result.Epoch);
    } catch (...) {
      if (m_options.OnError) m_options.OnError(std::current_exception());
    }
    if (m_options.OnSpill) m_options.OnSpill(result);
  }
  return result;
}

std::vector<std::string>
SpilloverManager::NewerCollections(resolvers::SpilloverPartitionResolver const& resolver) const {
  auto const& settings = resolver.Settings();
  std::vector<std::string> newer;
  for (auto& id : m_client->Account(settings.Account).ListCollections(settings.Database)) {
    auto n = resolvers::SpilloverPartitionResolver::ParseNumber(settings.CollectionPrefix, id);
    if (n && *n > resolver.NewestNumber()) newer.push_back(std::move(id));
  }
  return newer;
}

void SpilloverManager::SaveToStore(std::int64_t epoch) {
  // A few rounds: another client saving the same spill first is the usual
  // conflict, and the next round sees its epoch and stops.
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto stored = m_options.Store->Load();
    if (stored && stored->Epoch >= epoch) return;
    auto scheme = CurrentScheme();
    if (scheme.Epoch() != epoch) return;  // published over since: that publisher saves its own
    try {
      if (stored)
        m_options.Store->Save(scheme, *stored);
      else
        m_options.Store->Create(scheme);
      return;
    } catch (SchemeConflictError const&) {}
  }
  throw SchemeConflictError("spillover: could not save epoch " + std::to_string(epoch) +
                            " to the scheme store (it kept changing)");
}

resolvers::PartitionScheme SpilloverManager::CurrentScheme() const {
  auto snap = m_client->GetResolverSnapshot(m_options.Resolver);
  return resolvers::PartitionScheme(snap.Resolver, snap.Epoch, m_options.Accounts);
}

void SpilloverManager::SaveState(std::filesystem::path const& path) const {
  WriteFileAtomically(path, CurrentScheme().Save());
}

}  // namespace docshard::store

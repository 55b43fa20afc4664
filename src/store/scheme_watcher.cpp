#include "docshard/store/scheme_watcher.hpp"

#include "docshard/core/errors.hpp"

namespace docshard::store {

SchemeWatcher::SchemeWatcher(std::shared_ptr<ISchemeStore const> store,
                             std::shared_ptr<client::PartitionedClient> client, SchemeWatcherOptions options)
    : m_store(std::move(store)), m_client(std::move(client)), m_options(std::move(options)) {
  if (!m_options.Log) m_options.Log = DefaultLogger();
  if (!m_store || !m_client) throw InvalidArgumentError("SchemeWatcher: a store and a client are required");
  if (m_options.Interval.count() <= 0) throw InvalidArgumentError("SchemeWatcher: the interval must be positive");
}

SchemeWatcher::~SchemeWatcher() { Stop(); }

void SchemeWatcher::Start() {
  m_worker.Start([this] { return Round(); });
}

void SchemeWatcher::Stop() { m_worker.Stop(); }

std::chrono::milliseconds SchemeWatcher::Round() {
  try {
    (void)PollNow();
  } catch (...) {
    auto const error = std::current_exception();
    if (m_options.Log->Enabled(LogLevel::Warning)) {
      std::string what = "unknown error";
      try {
        std::rethrow_exception(error);
      } catch (std::exception const& e) {
        what = e.what();
      } catch (...) {}
      m_options.Log->Write(LogLevel::Warning, "store.watcher", "poll failed; the current scheme stays",
                           {{"resolver", m_options.Resolver}, {"error", what}});
    }
    if (m_options.OnError) m_options.OnError(error);
  }
  return m_options.Interval;
}

bool SchemeWatcher::PollNow() {
  std::lock_guard lock(m_pollMutex);
  auto stored = m_store->Load();
  if (!stored || stored->ETag == m_lastETag) return false;
  auto const& name = m_options.Resolver;
  std::int64_t current = 0;
  try {
    current = m_client->GetEpoch(name);
  } catch (InvalidArgumentError const&) {
    current = -1;  // nothing published under this name yet: any stored epoch is newer
  }
  if (stored->Epoch <= current) {
    m_lastETag = stored->ETag;  // older or equal: never go back, and do not parse it again
    return false;
  }
  auto scheme = stored->Parse(m_options.Registry ? *m_options.Registry : resolvers::DefaultResolverRegistry());
  auto epoch = scheme.Epoch().value_or(0);
  // Validated (key path, accounts) before publishing; on error the current
  // resolver stays and the next poll tries again. Only if still newer: a
  // spillover manager or the app may have published since the check above.
  if (!m_client->SetResolverIfNewer(name, scheme.Resolver(), epoch)) {
    m_lastETag = stored->ETag;
    return false;
  }
  m_lastETag = stored->ETag;
  m_options.Log->Write(LogLevel::Informational, "store.watcher", "scheme switched",
                       {{"resolver", m_options.Resolver}, {"fromEpoch", current}, {"toEpoch", epoch}});
  if (m_options.OnSwitch) m_options.OnSwitch(SchemeSwitch{current, epoch, scheme.Resolver(), stored->ETag});
  return true;
}

}  // namespace docshard::store

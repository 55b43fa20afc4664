#include "job_fence.hpp"

#include "request_charge.hpp"

#include "client/tombstone.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/cosmos/request_failed_error.hpp"

namespace docshard::migration::detail {

namespace {
constexpr char const* TombstoneKeyPath = "/pk";  // the tombstone collection's (client/tombstone.cpp)

std::string OpenJson(std::string const& id) {
  // The id is two hex digests and a fixed prefix: nothing to escape.
  return "{\"id\":\"" + id + "\",\"pk\":\"" + JobKey + "\",\"docshardJob\":1}";
}
}  // namespace

CollectionRef JobCollection(IPartitionResolver const& to) {
  auto const collections = to.Collections();
  if (collections.empty()) throw InvalidArgumentError("the new scheme names no collection");
  return client::detail::TombstoneCollection(collections.front());
}

std::string JobId(std::string const& fromHash, std::string const& toHash) {
  return "docshard-job-" + fromHash + "-" + toHash;
}

void OpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id) {
  client.CreateDatabaseIfNotExists(where.Database());
  client.CreateCollectionIfNotExists(where.Database(), where.Collection(), TombstoneKeyPath);
  try {
    client.CreateDocument(where.Link(), OpenJson(id), cosmos::PartitionKeyValue(JobKey));
  } catch (cosmos::ConflictError const&) {
    // Open already (another worker or migrator of the job).
  }
}

bool CloseJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id) {
  try {
    client.DeleteDocument(where.Link(), id, cosmos::PartitionKeyValue(JobKey));
    return true;
  } catch (cosmos::NotFoundError const&) {
    return false;  // closed before, its tombstones removed, or never opened
  }
}

JobFence::JobFence(cosmos::CosmosClient& client, CollectionRef where, std::string id, RequestUnitBudget* budget)
    : m_client(client), m_where(std::move(where)), m_id(std::move(id)), m_json(OpenJson(m_id)), m_budget(budget) {}

bool JobFence::Pass() {
  std::unique_lock lock(m_mutex);
  // A request begun after this call: the one in flight (if any) may have
  // been processed before our caller's Create.
  auto const need = m_started + 1;
  while (!m_closed && m_completed < need) {
    if (m_inFlight) {
      m_changed.wait(lock);
      continue;
    }
    m_inFlight = true;
    auto const generation = ++m_started;
    lock.unlock();
    bool open = true;
    try {
      auto const r = m_client.ReplaceDocument(m_where.Link(), m_id, m_json, cosmos::PartitionKeyValue(JobKey));
      if (m_budget) m_budget->Spend(RequestChargeOf(r.Diagnostics()));
    } catch (cosmos::NotFoundError const& e) {
      // The switch deleted it (or the job's tombstones were removed).
      if (m_budget) m_budget->Spend(RequestChargeOf(e.Diagnostics()));
      open = false;
    } catch (Error const& e) {
      if (m_budget) m_budget->Spend(RequestChargeOf(e.Diagnostics()));
      lock.lock();
      m_inFlight = false;
      m_changed.notify_all();
      throw;
    } catch (...) {
      lock.lock();
      m_inFlight = false;
      m_changed.notify_all();
      throw;
    }
    lock.lock();
    m_inFlight = false;
    m_completed = generation;
    if (!open) m_closed = true;
    m_changed.notify_all();
  }
  return !m_closed;
}

std::uint64_t JobFence::Requests() const {
  std::lock_guard lock(m_mutex);
  return m_started;
}

}  // namespace docshard::migration::detail

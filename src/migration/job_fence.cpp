#include "job_fence.hpp"

#include "request_charge.hpp"

#include "cosmos/unknown_outcome.hpp"
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/migration/tombstones.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <exception>

namespace docshard::migration::detail {

namespace {
constexpr char const* JobsCollectionName = "docshard-jobs";
constexpr char const* JobsKeyPath = "/pk";

std::string ClosedJson(std::string const& id) {
  // The id is two hex digests and a fixed prefix: nothing to escape.
  return "{\"id\":\"" + id + "\",\"pk\":\"" + JobKey + "\",\"docshardJobClosed\":1}";
}

std::string OpenId(std::string const& fromHash, std::string const& toHash) {
  return "docshard-job-open-" + fromHash + "-" + toHash;
}

std::string OpenJson(std::string const& fromHash, std::string const& toHash) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("id");
  w.String(OpenId(fromHash, toHash).c_str());
  w.Key("pk");
  w.String(JobKey);
  w.Key("docshardJobOpen");
  w.Int(1);
  w.Key("from");
  w.String(fromHash.c_str());
  w.Key("to");
  w.String(toHash.c_str());
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

// A 404 that says the collection (or database) is gone, not the document:
// the service's sub-status 1003 ("owner resource does not exist").
constexpr unsigned OwnerResourceNotFound = 1003;
bool CollectionGone(cosmos::NotFoundError const& e) { return e.SubStatus() == OwnerResourceNotFound; }
// A plain 404: the closed document does not exist. Any other sub-status (e.g.
// 1002, a replica behind the session) says nothing about the job: neither a
// false "open" (a confirm after the switch) nor a false "closed" (every
// remaining move of the run ended), so it fails the fence like any error.
bool DocumentMissing(cosmos::NotFoundError const& e) { return e.SubStatus() == 0; }

void CreateCollection(cosmos::CosmosClient& client, CollectionRef const& where) {
  client.CreateDatabaseIfNotExists(where.Database());
  client.CreateCollectionIfNotExists(where.Database(), where.Collection(), JobsKeyPath);
}
}  // namespace

CollectionRef JobCollection(IPartitionResolver const& to) {
  auto const collections = to.Collections();
  if (collections.empty()) throw InvalidArgumentError("the new scheme names no collection");
  return JobCollectionOf(collections.front());
}

CollectionRef JobCollectionOf(CollectionRef const& any) {
  return CollectionRef::Parse(std::string(any.Account()) + ":dbs/" + std::string(any.Database()) + "/colls/" +
                              JobsCollectionName);
}

std::string JobId(std::string const& fromHash, std::string const& toHash) {
  return "docshard-job-closed-" + fromHash + "-" + toHash;
}

void RecordOpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& fromHash,
                   std::string const& toHash) {
  CreateCollection(client, where);
  client.UpsertDocument(where.Link(), OpenJson(fromHash, toHash), cosmos::PartitionKeyValue(JobKey));
}

bool OpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& fromHash,
             std::string const& toHash) {
  // The record first: a removal of B's tombstones that finds it closes this
  // job; one that ran before it closed the job already, which the replace
  // below then finds.
  RecordOpenJob(client, where, fromHash, toHash);
  auto const id = JobId(fromHash, toHash);
  try {
    // A replace of the closed document by itself: repeated after an unknown
    // outcome (the client does not repeat a replace after a 503), it writes
    // the same again, so a busy moment does not fail the run at its start.
    cosmos::detail::RepeatWhileOutcomeUnknown(
        [&] { return client.ReplaceDocument(where.Link(), id, ClosedJson(id), cosmos::PartitionKeyValue(JobKey)); });
  } catch (cosmos::NotFoundError const&) {
    return true;  // not closed
  }
  return false;
}

InvalidArgumentError JobClosedError(CollectionRef const& where, std::string const& id,
                                    std::string const& closeFailure) {
  return InvalidArgumentError(
      "the migration between these schemes was switched to the new scheme already, or its tombstones were removed "
      "(its job is closed: " +
      where.Text() + " holds " + id + "); nothing can be moved any more. " +
      (closeFailure.empty() ? std::string("This run completed the job's close beside every record of it")
                            : "This run could not complete the job's close beside every record of it (" + closeFailure +
                                  "): run it again to repeat that") +
      ". To verify and switch it again, run it with its finished checkpoint (docshard migrate --resume) or as a "
      "worker of its lease. A new migration needs other schemes");
}

bool CloseJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id) {
  auto const json = ClosedJson(id);
  // Repeated after an unknown outcome: the document is the same whoever
  // created it, and a repeat of a create that was applied answers 409, which
  // reads as "closed before" although this call closed it (the count is
  // then one short; the job is closed either way, which is what matters).
  auto const create = [&] {
    cosmos::detail::RepeatWhileOutcomeUnknown(
        [&] { return client.CreateDocument(where.Link(), json, cosmos::PartitionKeyValue(JobKey)); });
  };
  try {
    try {
      create();
    } catch (cosmos::NotFoundError const&) {
      // No run of the job made the collection (or someone deleted it by
      // hand): make it, so that the job is closed for good.
      CreateCollection(client, where);
      create();
    }
    return true;
  } catch (cosmos::ConflictError const&) {
    return false;  // closed before
  }
}

namespace {

// The jobs `where` records as open (from and to hashes), whether closed since
// or not. A missing jobs collection records none.
std::vector<JobHashes> RecordedJobs(cosmos::CosmosClient& client, CollectionRef const& where) {
  cosmos::QueryOptions jobs;
  jobs.PartitionKey = cosmos::PartitionKeyValue(JobKey);
  cosmos::QueryResult found;
  try {
    // A handful of documents per database: read them all and pick here.
    found = client.QueryDocuments(where.Link(), cosmos::SqlQuery("SELECT * FROM c"), jobs);
  } catch (cosmos::NotFoundError const&) {
    return {};  // no run into this database recorded a job
  }
  std::vector<JobHashes> out;
  for (JsonView d : found.Documents.View().Elements()) {
    auto const& document = JsonInterop::Value(d);
    if (!document.IsObject() || !document.HasMember("docshardJobOpen")) continue;
    auto const from = document.FindMember("from");
    auto const to = document.FindMember("to");
    if (from == document.MemberEnd() || to == document.MemberEnd() || !from->value.IsString() || !to->value.IsString())
      continue;
    out.push_back({std::string(from->value.GetString(), from->value.GetStringLength()),
                   std::string(to->value.GetString(), to->value.GetStringLength())});
  }
  return out;
}

// Whether the job `job`, recorded in `where`, is closed there: the fence's
// question (found means closed; repeated after an unknown outcome, as the
// fence's), asked beside the record, in the same account (the close writes
// the closed document beside every record: CloseJobAndRecords). A missing
// jobs collection there (404/1003, deleted by hand with the record) is
// closed, as the fence counts it; any other 404 says nothing about the job:
// thrown.
bool Closed(cosmos::CosmosClient& account, CollectionRef const& where, JobHashes const& job) {
  auto const id = JobId(job.From, job.To);
  try {
    cosmos::detail::RepeatWhileOutcomeUnknown(
        [&] { return account.ReplaceDocument(where.Link(), id, ClosedJson(id), cosmos::PartitionKeyValue(JobKey)); });
    return true;
  } catch (cosmos::NotFoundError const& e) {
    if (CollectionGone(e)) return true;
    if (!DocumentMissing(e)) throw;
  }
  return false;
}

// The jobs recorded in `where` that `pick` selects and that are not closed.
template <typename Pick>
std::vector<JobHashes> OpenJobs(client::PartitionedClient& client, CollectionRef const& where, Pick pick) {
  std::vector<JobHashes> out;
  auto& account = client.Account(where.Account());
  for (auto& job : RecordedJobs(account, where))
    if (pick(job) && !Closed(account, where, job)) out.push_back(std::move(job));
  return out;
}

}  // namespace

bool CloseJobAndRecords(client::PartitionedClient& client, IPartitionResolver const& to, std::string const& fromHash,
                        std::string const& toHash) {
  auto const primary = JobCollection(to);
  auto const id = JobId(fromHash, toHash);
  // Where the fences ask first: from here on no move of the job confirms.
  // Then beside every copy of its open record, where removals of other
  // jobs' tombstones ask (each in its own collection and account: no name
  // of one scheme's config is looked up in another's). Also when the first
  // answers "closed before": a close interrupted between the two is
  // completed by repeating it. When the first fails nothing else is
  // written: a copy reading closed while the fences answer open would let a
  // removal of another job's tombstones proceed under this job's movers.
  bool const closed = CloseJob(client.Account(primary.Account()), primary, id);
  // A copy that fails (an account whose key was revoked, an endpoint gone)
  // leaves only its own database reading open (the safe way): every other
  // one is still closed, then the first failure is thrown.
  std::exception_ptr failed;
  for (auto const& t : TombstoneCollections(to)) {
    auto const jobs = JobCollectionOf(t);
    if (jobs.Text() == primary.Text()) continue;
    try {
      CloseJob(client.Account(jobs.Account()), jobs, id);
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  return closed;
}

std::size_t CloseJobsInto(client::PartitionedClient& client, IPartitionResolver const& to, std::string const& toHash) {
  std::size_t closed = 0;
  auto const where = JobCollection(to);
  for (auto const& job : RecordedJobs(client.Account(where.Account()), where)) {
    if (job.To != toHash) continue;
    if (CloseJobAndRecords(client, to, job.From, toHash)) ++closed;
  }
  return closed;
}

std::vector<JobHashes> OpenJobsNotInto(client::PartitionedClient& client, CollectionRef const& where,
                                       std::string const& exceptToHash) {
  return OpenJobs(client, where, [&](JobHashes const& job) { return job.To != exceptToHash; });
}

std::vector<JobHashes> OpenJobsInto(client::PartitionedClient& client, CollectionRef const& where,
                                    std::string const& toHash, std::string const& exceptFromHash) {
  return OpenJobs(client, where, [&](JobHashes const& job) { return job.To == toHash && job.From != exceptFromHash; });
}

JobFence::JobFence(cosmos::CosmosClient& client, CollectionRef where, std::string id, RequestUnitBudget* budget)
    : m_client(client), m_where(std::move(where)), m_id(std::move(id)), m_json(ClosedJson(m_id)), m_budget(budget) {}

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
    bool open = false;
    try {
      // Found: the switch closed the job. A replace by itself, repeated
      // after an unknown outcome (the client does not repeat a replace after
      // a 503): every repeat is still a request begun after this call, so
      // its answer is as good as the first one's. Each attempt is charged.
      cosmos::detail::RepeatWhileOutcomeUnknown([&] {
        try {
          auto r = m_client.ReplaceDocument(m_where.Link(), m_id, m_json, cosmos::PartitionKeyValue(JobKey));
          if (m_budget) m_budget->Spend(RequestChargeOf(r.Diagnostics()));
          return r;
        } catch (Error const& e) {
          if (m_budget) m_budget->Spend(RequestChargeOf(e.Diagnostics()));
          throw;
        }
      });
    } catch (cosmos::NotFoundError const& e) {
      // No closed document: open, unless the jobs collection itself is gone
      // (deleted by hand; nothing of ours deletes it): closed, the safe way.
      if (!DocumentMissing(e) && !CollectionGone(e)) {
        lock.lock();
        m_inFlight = false;
        m_changed.notify_all();
        throw;
      }
      open = DocumentMissing(e);
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

#include "docshard/migration/document_mover.hpp"

#include "docshard/errors.hpp"
#include "docshard/migration/document_content.hpp"

#include <set>
#include <thread>

namespace docshard {

namespace {
// Each round either finishes or observed a concurrent change; a document that
// changes this often under us is left for the next run (nothing is lost).
constexpr int MaxRounds = 32;
constexpr int MaxThrottledTries = 20;

std::string ETagOf(rapidjson::Value const& document) {
  auto const it = document.FindMember("_etag");
  if (it == document.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}
} // namespace

DocumentMover::DocumentMover(CosmosClient& source, CollectionRef sourceRef, CosmosClient& target,
                             CollectionRef targetRef, TokenBucket& pacer)
    : m_source(source), m_sourceRef(std::move(sourceRef)), m_target(target), m_targetRef(std::move(targetRef)),
      m_pacer(pacer) {}

// The client already retries 429s within its budget; when that budget is
// spent we pause every worker (the pacer) and try the same request again.
// Safe: a 429 means the request was not executed.
template <typename Operation>
CosmosResponse DocumentMover::Call(Operation&& operation) {
  for (int attempt = 1;; ++attempt) {
    try {
      auto response = operation();
      if (response.Retries() > 0)
        m_pacer.OnThrottled(std::chrono::milliseconds(0));  // it needed retries: slow down a little
      else
        m_pacer.OnSuccess();
      return response;
    } catch (ThrottledError const& e) {
      if (attempt >= MaxThrottledTries) throw;
      m_pacer.OnThrottled(e.RetryAfter());
      std::this_thread::sleep_for(m_pacer.CurrentBackoff());
    }
  }
}

MoveResult DocumentMover::Move(rapidjson::Value const& document, PartitionKeyValue const& partitionKey) {
  auto const idMember = document.FindMember("id");
  if (idMember == document.MemberEnd() || !idMember->value.IsString())
    throw InvalidArgumentError("document without a string id in " + m_sourceRef.Text());
  std::string const id(idMember->value.GetString(), idMember->value.GetStringLength());

  rapidjson::Document current;
  current.CopyFrom(document, current.GetAllocator());
  std::string sourceETag = ETagOf(current);
  std::set<std::string> ourETags;  // target versions this call wrote
  MoveResult result;

  for (int round = 0; round < MaxRounds; ++round) {
    // 1. Copy.
    std::string targetETag;
    bool targetHasSource = false;
    try {
      auto r = Call([&] { return m_target.CreateDocument(m_targetRef.Link(), UserContentJson(current), partitionKey); });
      targetETag = r.ETag();
      ourETags.insert(targetETag);
      targetHasSource = true;
    } catch (ConflictError const&) {
      rapidjson::Document existing;
      try {
        auto r = Call([&] { return m_target.ReadDocument(m_targetRef.Link(), id, partitionKey); });
        existing = r.Json();
        targetETag = r.ETag().empty() ? ETagOf(existing) : r.ETag();
      } catch (NotFoundError const&) {
        continue;  // deleted between our create and read: copy again
      }
      if (SameUserContent(existing, current)) {
        targetHasSource = true;  // our copy (an earlier round or run) or an identical write
      } else if (ourETags.count(targetETag)) {
        // Our own copy, made stale by a source change (412 below): refresh it,
        // unless the app writes a newer version first (412 here).
        try {
          auto r = Call([&] {
            RequestOptions o;
            o.IfMatchETag = targetETag;
            return m_target.ReplaceDocument(m_targetRef.Link(), id, UserContentJson(current), partitionKey, o);
          });
          targetETag = r.ETag();
          ourETags.insert(targetETag);
          targetHasSource = true;
        } catch (PreconditionFailedError const&) {
          continue;  // the app wrote it meanwhile: look again
        } catch (NotFoundError const&) {
          continue;
        }
      }
      // else: a newer application write; it wins.
    }

    // 2. Remove the source, only if it is still the version we copied.
    bool sourceGone = false;
    try {
      Call([&] {
        RequestOptions o;
        if (!sourceETag.empty()) o.IfMatchETag = sourceETag;
        return m_source.DeleteDocument(m_sourceRef.Link(), id, partitionKey, o);
      });
      result.Outcome = targetHasSource ? MoveOutcome::Moved : MoveOutcome::KeptNewer;
      return result;
    } catch (PreconditionFailedError const&) {
      // Changed after our copy: copy the new version.
      try {
        auto r = Call([&] { return m_source.ReadDocument(m_sourceRef.Link(), id, partitionKey); });
        current = r.Json();
        sourceETag = r.ETag().empty() ? ETagOf(current) : r.ETag();
        ++result.Recopies;
        continue;
      } catch (NotFoundError const&) {
        sourceGone = true;
      }
    } catch (NotFoundError const&) {
      sourceGone = true;
    }

    if (sourceGone) {
      // The app deleted it (its delete may have missed a copy we made after
      // it looked), or moved it with a replace. Remove only a target version
      // we wrote ourselves; anything else is an application write.
      if (!ourETags.count(targetETag)) {
        result.Outcome = MoveOutcome::SourceGone;
        return result;
      }
      try {
        Call([&] {
          RequestOptions o;
          o.IfMatchETag = targetETag;
          return m_target.DeleteDocument(m_targetRef.Link(), id, partitionKey, o);
        });
        result.Outcome = MoveOutcome::Unresurrected;
      } catch (PreconditionFailedError const&) {
        result.Outcome = MoveOutcome::KeptNewer;  // the app wrote it after our copy
      } catch (NotFoundError const&) {
        result.Outcome = MoveOutcome::Unresurrected;  // already gone
      }
      return result;
    }
  }
  throw Error(ErrorCode::Internal, "document \"" + id + "\" in " + m_sourceRef.Text() +
                                       " kept changing during its move; it stays in place for the next run");
}

} // namespace docshard
